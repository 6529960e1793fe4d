/**
 * The `endpoint` label of requests no route of the service matched: drop-in mode forwards the
 * Mastodon API paths it does not implement (and `/api/v1/proxy/*` forwards any), which all
 * read `unmatched` (or `/api/v1/proxy/*`) before. They are labelled by their Mastodon route:
 * each segment that is not a plain lowercase word (ids, handles, hashtags) becomes a
 * parameter, so `/api/v1/statuses/1099/favourite` is `/api/v1/statuses/:id/favourite`.
 * Any caller can invent paths, so at most ROUTE_LABELS distinct labels are made; the rest
 * are `unmatched`.
 */

/** Prefixes the Mastodon API (and what drop-in mode forwards) lives under. */
const MASTODON_PREFIXES = ['/api/', '/oauth/', '/nodeinfo', '/.well-known/'];
const PROXY_PREFIX = '/api/v1/proxy';
const ROUTE_LABELS = 200;
const MAX_SEGMENTS = 8;

/** A Mastodon route pattern of a path (query dropped): ids and names become `:id`, a tag `:hashtag`. */
export function mastodonRoute(path: string): string {
  const segments = (path.split('?')[0] ?? '').split('/').slice(1, 1 + MAX_SEGMENTS);
  return `/${segments
    .map((segment, i) => {
      if (segments[i - 1] === 'tag' || segments[i - 1] === 'tags') return ':hashtag';
      return /^(?:[a-z_]+|v\d+|\.well-known|[a-z_-]+\.json)$/.test(segment) ? segment : ':id';
    })
    .join('/')}`;
}

/** Labels for unmatched and proxied requests, bounded. */
export function endpointLabeller(): (routeUrl: string | undefined, url: string) => string {
  const made = new Set<string>();
  const bounded = (label: string): string => {
    if (made.has(label)) return label;
    if (made.size >= ROUTE_LABELS) return 'unmatched';
    made.add(label);
    return label;
  };
  return (routeUrl, url) => {
    if (routeUrl === `${PROXY_PREFIX}/*`) return bounded(`${PROXY_PREFIX}${mastodonRoute(url.slice(PROXY_PREFIX.length))}`);
    if (routeUrl !== undefined) return routeUrl;
    return MASTODON_PREFIXES.some((prefix) => url.startsWith(prefix)) ? bounded(mastodonRoute(url)) : 'unmatched';
  };
}

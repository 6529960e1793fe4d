/** Mastodon's `Link` header for paged lists: rel="next" (older) and rel="prev" (newer). */
import type { FastifyRequest } from 'fastify';

/** The absolute URL of this request's path with `query` as its query string. */
function pageUrl(request: FastifyRequest, query: Record<string, string>): string {
  const path = request.url.split('?')[0] ?? '/';
  const search = new URLSearchParams(query).toString();
  return `${request.protocol}://${request.host}${path}${search ? `?${search}` : ''}`;
}

/**
 * The Link header for a page whose items run from `newestId` to `oldestId`, keeping the
 * request's other parameters (filters, limit); undefined for an empty page.
 */
export function linkHeader(request: FastifyRequest, newestId: string | undefined, oldestId: string | undefined): string | undefined {
  if (newestId === undefined || oldestId === undefined) return undefined;
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(request.query as Record<string, unknown>)) {
    if (['max_id', 'since_id', 'min_id'].includes(key) || value === undefined) continue;
    kept[key] = String(value);
  }
  const next = pageUrl(request, { ...kept, max_id: oldestId });
  const prev = pageUrl(request, { ...kept, min_id: newestId });
  return `<${next}>; rel="next", <${prev}>; rel="prev"`;
}

/**
 * `Link` headers for paged lists, as Mastodon writes them: absolute URLs on the public
 * base (server/platform/http/public-url.ts, never the client's Host), the route's canonical path
 * (not the raw, possibly percent-encoded URL), the route's own query parameters only,
 * every value encoded.
 */
import type { FastifyRequest } from 'fastify';
import { publicBaseUrl } from './public-url.js';

type QueryValue = string | number | boolean | undefined | readonly (string | number | boolean)[];

/** One entry of a Link header: a relation and the query of its page. */
export interface PageLink {
  rel: 'next' | 'prev';
  query: Record<string, QueryValue>;
}

/** The route's path pattern with this request's parameters filled in, each encoded. */
export function canonicalPath(request: FastifyRequest): string {
  const pattern = request.routeOptions.url ?? '/';
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  return pattern.replace(/:([A-Za-z0-9_]+)|\*/g, (token, name: string | undefined) =>
    encodeURIComponent(String(params[name ?? '*'] ?? token)),
  );
}

/**
 * The request's query parameters that its route declares, minus `drop` (the paging
 * cursor of this list): filters and `limit` carry over to the next page, unknown
 * parameters do not.
 */
export function keptQuery(request: FastifyRequest, drop: readonly string[]): Record<string, QueryValue> {
  const declared = (request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  const query = (request.query ?? {}) as Record<string, QueryValue>;
  const kept: Record<string, QueryValue> = {};
  for (const key of Object.keys(declared)) {
    if (!drop.includes(key) && query[key] !== undefined) kept[key] = query[key];
  }
  return kept;
}

/** The absolute URL of this route with `query` (values encoded; arrays as repeated keys). */
export function pageUrl(request: FastifyRequest, query: Record<string, QueryValue>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  }
  const text = search.toString();
  return `${publicBaseUrl(request)}${canonicalPath(request)}${text ? `?${text}` : ''}`;
}

/** The Link header for these pages of this route; undefined when there is none. */
export function linkHeader(request: FastifyRequest, links: readonly PageLink[]): string | undefined {
  if (links.length === 0) return undefined;
  return links.map((link) => `<${pageUrl(request, link.query)}>; rel="${link.rel}"`).join(', ');
}

/**
 * Mastodon's id paging for a page of `limit` items, newest first: rel="next" (older,
 * `max_id`) only when the page is full, rel="prev" (newer, `min_id`) whenever it has items.
 */
export function idPageLinks(
  request: FastifyRequest,
  page: { newestId?: string | undefined; oldestId?: string | undefined; count: number; limit: number },
): PageLink[] {
  if (page.newestId === undefined || page.oldestId === undefined) return [];
  const kept = keptQuery(request, ['max_id', 'since_id', 'min_id']);
  const links: PageLink[] = [];
  if (page.count >= page.limit) links.push({ rel: 'next', query: { ...kept, max_id: page.oldestId } });
  links.push({ rel: 'prev', query: { ...kept, min_id: page.newestId } });
  return links;
}

/** Mastodon's offset paging (as for trends): rel="next" while more items exist, rel="prev" after the first page. */
export function offsetPageLinks(request: FastifyRequest, page: { offset: number; limit: number; total: number }): PageLink[] {
  const kept = keptQuery(request, ['offset']);
  const links: PageLink[] = [];
  if (page.offset + page.limit < page.total) links.push({ rel: 'next', query: { ...kept, offset: page.offset + page.limit } });
  if (page.offset > 0) links.push({ rel: 'prev', query: { ...kept, offset: Math.max(0, page.offset - page.limit) } });
  return links;
}

/** Sets the Link header when there are links. */
export function setLinkHeader(
  reply: { header(name: string, value: string): unknown },
  request: FastifyRequest,
  links: readonly PageLink[],
): void {
  const value = linkHeader(request, links);
  if (value !== undefined) reply.header('link', value);
}

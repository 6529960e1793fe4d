/**
 * A paginator as masto.js runs one: request a page, read the `Link` header, follow its
 * rel="next" URL as given until there is none. Pages go through `app.inject`, so the
 * URL's base must be the one the app is expected to write.
 */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/** The URL of one relation in a Link header, if present. */
export function linkUrl(link: string | undefined, rel: 'next' | 'prev'): string | undefined {
  if (link === undefined) return undefined;
  for (const entry of link.split(/,\s*(?=<)/)) {
    const match = /^<([^>]*)>;\s*rel="([^"]*)"$/.exec(entry.trim());
    if (match?.[2] === rel) return match[1];
  }
  return undefined;
}

/** Every item id seen following rel="next" from `firstPath`, page by page (throws after `maxPages`). */
export async function followNext(
  app: FastifyInstance,
  firstPath: string,
  options: { headers?: Record<string, string>; base?: string; maxPages?: number } = {},
): Promise<{ pages: string[][]; ids: string[] }> {
  const base = options.base ?? 'http://localhost';
  const pages: string[][] = [];
  let path: string | undefined = firstPath;
  while (path !== undefined) {
    if (pages.length >= (options.maxPages ?? 50)) throw new Error(`no end after ${pages.length} pages`);
    const res = await app.inject({ url: path, ...(options.headers ? { headers: options.headers } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    pages.push(res.json<{ id: string }[]>().map((s) => s.id));
    const next = linkUrl(res.headers.link as string | undefined, 'next');
    if (next === undefined) break;
    expect(next.startsWith(`${base}/`), next).toBe(true);
    const url = new URL(next);
    path = `${url.pathname}${url.search}`;
  }
  return { pages, ids: pages.flat() };
}

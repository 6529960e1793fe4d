/**
 * gzip for the large JSON bodies a client asks for again and again (a recommendation page is
 * ~45 KB of Mastodon statuses, ~4.4 KB gzipped). Every Mastodon client sends
 * `Accept-Encoding: gzip` (browsers, okhttp, URLSession, undici's fetch): the body crosses a
 * phone's network a tenth as large, and a page kept for warm requests is kept in that form.
 * gzip at level 1 (~70 µs for 45 KB on the 2-core VM, 4.4 KB) rather than brotli (smaller, but
 * browsers ask for it over HTTPS only, and okhttp not at all) or a higher level (+4% smaller
 * for twice the time).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { FastifyReply } from 'fastify';

/** The encodings a body is sent in. */
export type BodyEncoding = 'identity' | 'gzip';

/**
 * Whether an `Accept-Encoding` header accepts gzip (RFC 9110 §12.5.3): `gzip` or `x-gzip`, or
 * `*`, with a q-value above 0; `gzip;q=0` refuses it even when `*` would accept it.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  let star: boolean | undefined;
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const accepted = q === undefined || Number(q.slice(2)) > 0;
    if (name === 'gzip' || name === 'x-gzip') return accepted;
    if (name === '*') star = accepted;
  }
  return star === true;
}

/** The encoding a request's `Accept-Encoding` asks a large JSON body to be sent in. */
export function bodyEncodingFor(header: string | string[] | undefined): BodyEncoding {
  return acceptsGzip(header) ? 'gzip' : 'identity';
}

/**
 * `body` in `encoding`. A gzipped body is copied into memory of its own size: gzipSync returns a
 * slice of its 16 KB output chunk, so each ~4.4 KB page kept with its list held 16 KB (on the
 * 100k-user set 91 MB for pages counted as 49 MB: bench/README.md, "Memory budget, 2026-11-28").
 */
export function encodeBody(body: Buffer, encoding: BodyEncoding): Buffer {
  if (encoding === 'identity') return body;
  const gzipped = gzipSync(body, { level: 1 });
  if (gzipped.buffer.byteLength === gzipped.length) return gzipped;
  const own = Buffer.allocUnsafeSlow(gzipped.length);
  gzipped.copy(own);
  return own;
}

/** The bytes `body` (in `encoding`) stands for. */
export function decodeBody(body: Buffer, encoding: BodyEncoding): Buffer {
  return encoding === 'gzip' ? gunzipSync(body) : body;
}

/**
 * Sets the headers of a body sent in `encoding`: `Content-Encoding` when it is not identity, and
 * `Vary: Accept-Encoding` either way (a cache must not give a gzip body to a client that did
 * not ask for one, nor the other way round).
 */
export function markEncoding(reply: FastifyReply, encoding: BodyEncoding): void {
  if (encoding !== 'identity') reply.header('content-encoding', encoding);
  addVary(reply, 'Accept-Encoding');
}

/** The encoding a reply's body was given (markEncoding), identity when none. */
export function encodingOf(reply: FastifyReply): BodyEncoding {
  return reply.getHeader('content-encoding') === 'gzip' ? 'gzip' : 'identity';
}

/** Adds `header` to the reply's `Vary` unless it (or `*`) is there already. */
export function addVary(reply: FastifyReply, header: string): void {
  const existing = reply.getHeader('vary');
  const values = (Array.isArray(existing) ? existing.join(',') : String(existing ?? ''))
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
  if (!values.some((value) => value.toLowerCase() === header.toLowerCase() || value === '*')) values.push(header);
  reply.header('vary', values.join(', '));
}

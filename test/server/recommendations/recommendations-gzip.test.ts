/**
 * Recommendation pages gzipped for the clients that ask (issue 27; every Mastodon client sends
 * Accept-Encoding: gzip), over real HTTP: undici's `request` shows the bytes as sent, `fetch`
 * reads them as a client does. A page kept for warm requests is kept in the encoding asked
 * for; a client asking in the other is served the same JSON; reasons are localised inside a
 * gzip body too.
 */
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acceptsGzip, encodeBody } from '../../../server/platform/http/content-encoding.js';
import { localiseReasonText } from '../../../src/ranking/reason-text.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';

let t: TestApp;
let base: string;

type Item = { id: string; recommendation_reason: string; recommendation_metadata: { reason_string: string } };

beforeEach(async () => {
  t = await createTestApp();
  // 40 posts by 20 authors: the diversity rule lets each author take few places on a page.
  const statuses = Array.from({ length: 40 }, (_, i) =>
    makeStatus({ n: i + 1, author: `author${i % 20}`, tags: ['cats'], text: `post ${i} about cats`, favourites: i }),
  );
  const seeded = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
  expect(seeded.statusCode, seeded.body).toBe(201);
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterEach(async () => {
  await t.close();
});

/** The raw response: status, headers and the bytes as they came. */
async function raw(userId: string, headers: Record<string, string> = {}, query = '&limit=10') {
  const res = await request(`${base}/api/v1/recommendations?user_id=${userId}${query}`, {
    headers: { ...(await t.userHeaders(userId)), ...headers },
  });
  return { status: res.statusCode, headers: res.headers, bytes: Buffer.from(await res.body.arrayBuffer()) };
}

describe('a recommendation page for a client that accepts gzip', () => {
  it('is gzipped, says so and varies on Accept-Encoding; its JSON is the identity page', async () => {
    const zipped = await raw('zoe', { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(String(zipped.headers.vary)).toContain('Accept-Encoding');
    expect(Number(zipped.headers['content-length'])).toBe(zipped.bytes.length);
    const json = gunzipSync(zipped.bytes);
    expect(zipped.bytes.length).toBeLessThan(json.length / 2);
    // The warm page asked without gzip: the same JSON, not encoded.
    const plain = await raw('zoe');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(String(plain.headers.vary)).toContain('Accept-Encoding');
    expect(plain.bytes.equals(json)).toBe(true);
    expect(JSON.parse(json.toString('utf8'))).toHaveLength(10);
    // Both forms kept now: each is the same bytes again.
    expect((await raw('zoe', { 'accept-encoding': 'gzip' })).bytes.equals(zipped.bytes)).toBe(true);
    expect((await raw('zoe')).bytes.equals(plain.bytes)).toBe(true);
  });

  it('kept first without gzip, is gzipped for the next client that asks', async () => {
    const plain = await raw('yan');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const zipped = await raw('yan', { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.bytes).equals(plain.bytes)).toBe(true);
  });

  it('is read by fetch as any client reads it, later pages included', async () => {
    const headers = await t.userHeaders('xia');
    const first = await fetch(`${base}/api/v1/recommendations?user_id=xia&limit=5`, { headers });
    expect(first.headers.get('content-encoding')).toBe('gzip');
    const items = (await first.json()) as Item[];
    expect(items).toHaveLength(5);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await fetch(next!, { headers });
    expect(second.headers.get('content-encoding')).toBe('gzip');
    const more = (await second.json()) as Item[];
    expect(more).toHaveLength(5);
    expect(more.filter((i) => items.some((j) => j.id === i.id))).toEqual([]);
  });

  it('carries its reasons in the reader language, gzipped', async () => {
    const english = JSON.parse((await raw('wen')).bytes.toString('utf8')) as Item[];
    const german = await raw('wen', { 'accept-encoding': 'gzip', 'accept-language': 'de' });
    expect(german.headers['content-encoding']).toBe('gzip');
    expect(german.headers['content-language']).toBe('de');
    const body = JSON.parse(gunzipSync(german.bytes).toString('utf8')) as Item[];
    expect(body.map((i) => i.id)).toEqual(english.map((i) => i.id));
    expect(body.map((i) => i.recommendation_reason)).toEqual(english.map((i) => localiseReasonText(i.recommendation_reason, 'de')));
    expect(body.map((i) => i.recommendation_reason)).not.toEqual(english.map((i) => i.recommendation_reason));
  });

  it('is not gzipped for a client that refuses it', async () => {
    for (const refusal of ['gzip;q=0, *', 'br', 'identity', 'deflate;q=1, gzip;q=0']) {
      const res = await raw('vic', { 'accept-encoding': refusal });
      expect(res.headers['content-encoding'], refusal).toBeUndefined();
      expect(JSON.parse(res.bytes.toString('utf8')), refusal).toHaveLength(10);
    }
  });
});

describe('encodeBody', () => {
  it("gives a gzipped page memory of its own size, not a slice of zlib's 16 KB chunk (a kept page is held as long as its list)", () => {
    const page = Buffer.from(
      JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: String(1e17 + i * 7919), content: `post ${i} about cats` }))),
    );
    const gzipped = encodeBody(page, 'gzip');
    expect(gzipped.length).toBeLessThan(16_384);
    expect(gzipped.buffer.byteLength).toBe(gzipped.length);
    expect(gunzipSync(gzipped).equals(page)).toBe(true);
    expect(encodeBody(page, 'identity')).toBe(page);
  });
});

describe('acceptsGzip (RFC 9110 §12.5.3)', () => {
  it.each([
    ['gzip', true],
    ['GZIP', true],
    ['x-gzip', true],
    ['deflate, gzip;q=0.5', true],
    ['*', true],
    ['br;q=1, *;q=0.1', true],
    ['gzip;q=0', false],
    ['gzip;q=0.000', false],
    ['gzip;q=0, *', false],
    ['*;q=0', false],
    ['br, deflate', false],
    ['', false],
  ])('%s → %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
  it('reads a header sent more than once, and none', () => {
    expect(acceptsGzip(['br', 'gzip'])).toBe(true);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});

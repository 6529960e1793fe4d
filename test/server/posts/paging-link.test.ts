import { request as httpRequest } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestAppOptions } from '../../helpers/test-app.js';
import { insertEngagements } from '../../helpers/engagements.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { followNext, linkUrl } from './link-paginator.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** An app with `count` posts (n = 1..count, newer with n, favourited so that they all trend). */
async function appWithPosts(count: number, options: TestAppOptions = {}): Promise<TestApp> {
  t = await createTestApp(options);
  const statuses = Array.from({ length: count }, (_, i) => makeStatus({ n: i + 1, ageHours: count - i, tags: ['cats'] }));
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
  expect(res.statusCode).toBe(201);
  const engagers = (i: number) => Array.from({ length: 3 + ((i * 7) % 11) }, (_, k) => `reader${k}`);
  await insertEngagements(
    t.database.db,
    statuses.map((_, i) => ({ postId: postId(i + 1), userIds: engagers(i) })),
  );
  return t;
}

async function linkOf(app: TestApp['app'], url: string, headers: Record<string, string> = {}, remoteAddress?: string): Promise<string> {
  const res = await app.inject({ url, headers, ...(remoteAddress ? { remoteAddress } : {}) });
  expect(res.statusCode, res.body).toBe(200);
  return String(res.headers.link);
}

describe('Link headers: where the absolute URLs come from', () => {
  const hostile = 'evil.example>; rel="next", <https://evil.example/steal';

  it('never copies the Host header, hostile or plain', async () => {
    const { app } = await appWithPosts(5);
    for (const host of [hostile, 'evil.example', 'evil.example:8443']) {
      const link = await linkOf(app, '/api/v1/posts?limit=2', { host });
      expect(link).not.toContain('evil');
      expect(link.startsWith('<http://localhost/api/v1/posts?')).toBe(true);
      // Exactly the two entries the service wrote, whatever the Host said.
      expect(link.match(/rel="/g)).toHaveLength(2);
    }
  });

  it('uses the configured public URL', async () => {
    const { app } = await appWithPosts(5, { publicUrl: 'https://recs.example.org/base' });
    const link = await linkOf(app, '/api/v1/posts?limit=2', { host: 'evil.example', 'x-forwarded-host': 'evil.example' });
    expect(linkUrl(link, 'next')).toBe(`https://recs.example.org/base/api/v1/posts?limit=2&max_id=${postId(4)}`);
    expect(linkUrl(link, 'prev')).toBe(`https://recs.example.org/base/api/v1/posts?limit=2&min_id=${postId(5)}`);
  });

  it('ignores X-Forwarded-Host (and Host) without --trust-proxy', async () => {
    const { app } = await appWithPosts(5);
    const link = await linkOf(app, '/api/v1/posts?limit=2', {
      host: 'evil.example',
      'x-forwarded-for': '198.51.100.7',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
    });
    expect(link).not.toContain('evil');
  });

  it("with --trust-proxy, uses the trusted proxy's forwarded host and proto only when they are valid", async () => {
    const { app } = await appWithPosts(5, { trustProxy: '10.0.0.0/8' });
    const proxied = { host: 'internal:8080', 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' };
    const good = await linkOf(app, '/api/v1/posts?limit=2', { ...proxied, 'x-forwarded-host': 'Recs.Example.org' }, '10.1.2.3');
    expect(linkUrl(good, 'next')).toBe(`https://recs.example.org/api/v1/posts?limit=2&max_id=${postId(4)}`);
    const withPort = await linkOf(app, '/api/v1/posts?limit=2', { ...proxied, 'x-forwarded-host': '[2001:db8::1]:8443' }, '10.1.2.3');
    expect(linkUrl(withPort, 'next')?.startsWith('https://[2001:db8::1]:8443/api/v1/posts?')).toBe(true);

    for (const bad of [
      hostile,
      'evil.example/path',
      'evil"example',
      'evil example',
      'evil.example;x',
      'user@evil.example',
      'evil.example:99999',
      '<evil>',
    ]) {
      const link = await linkOf(app, '/api/v1/posts?limit=2', { ...proxied, 'x-forwarded-host': bad }, '10.1.2.3');
      expect(link, bad).not.toContain('evil');
      expect(link.match(/rel="/g), bad).toHaveLength(2);
    }
    const badProto = await linkOf(
      app,
      '/api/v1/posts?limit=2',
      { ...proxied, 'x-forwarded-host': 'recs.example.org', 'x-forwarded-proto': 'javascript' },
      '10.1.2.3',
    );
    expect(badProto).not.toContain('recs.example.org');
    expect(badProto).not.toContain('javascript');
    // The same headers from a peer that is not a trusted proxy are the client's own: ignored.
    const direct = await linkOf(app, '/api/v1/posts?limit=2', { ...proxied, 'x-forwarded-host': 'evil.example' }, '198.51.100.7');
    expect(direct).not.toContain('evil');
  });

  it('over a real socket without a public URL, uses the address the client connected to', async () => {
    const { app } = await appWithPosts(3);
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const res = await httpRequest(`${address}/api/v1/posts?limit=1`, { headers: { host: 'evil.example' } });
    await res.body.dump();
    expect(res.statusCode).toBe(200);
    expect(linkUrl(String(res.headers.link), 'next')).toBe(`${address}/api/v1/posts?limit=1&max_id=${postId(3)}`);
  });
});

describe('Link headers: path and query', () => {
  it("use the route's canonical path, not a percent-encoded spelling of it", async () => {
    const { app } = await appWithPosts(5);
    const link = await linkOf(app, '/api/v1/%70osts?limit=2');
    expect(linkUrl(link, 'next')).toBe(`http://localhost/api/v1/posts?limit=2&max_id=${postId(4)}`);
  });

  it("carry the route's own parameters, encoded, and drop unknown ones", async () => {
    const { app } = await appWithPosts(5);
    // '#Cats ' matches the tag cats; the unknown parameter would break the entry if echoed.
    const link = await linkOf(app, `/api/v1/posts?limit=2&tag=%23Cats%20&utm=%3E%3B%20rel%3D%22prev%22`);
    expect(link.match(/rel="/g)).toHaveLength(2);
    const next = new URL(linkUrl(link, 'next') ?? '');
    expect(next.searchParams.get('tag')).toBe('#Cats ');
    expect(next.searchParams.has('utm')).toBe(false);
    expect(next.search).not.toMatch(/[<>" ;#]/);
  });

  it('offer rel="next" on posts only for a full page, so a paginator stops on the last one', async () => {
    const { app } = await appWithPosts(5);
    const { pages, ids } = await followNext(app, '/api/v1/posts?limit=2');
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(ids).toEqual([5, 4, 3, 2, 1].map(postId));
  });
});

describe('GET /api/v1/posts/trending paging', () => {
  it('a paginator following rel="next" visits every trending post exactly once, in order, and stops', async () => {
    const { app } = await appWithPosts(13);
    const all = (await app.inject({ url: '/api/v1/posts/trending?limit=40' })).json<{ id: string }[]>();
    expect(all).toHaveLength(13);
    const { pages, ids } = await followNext(app, '/api/v1/posts/trending?limit=5');
    expect(pages.map((p) => p.length)).toEqual([5, 5, 3]);
    expect(ids).toEqual(all.map((s) => s.id));
  });

  it('links by offset: rel="next" while more remain, rel="prev" after the first page', async () => {
    const { app } = await appWithPosts(13);
    const first = await linkOf(app, '/api/v1/posts/trending?limit=5');
    expect(linkUrl(first, 'next')).toBe('http://localhost/api/v1/posts/trending?limit=5&offset=5');
    expect(linkUrl(first, 'prev')).toBeUndefined();
    const middle = await linkOf(app, '/api/v1/posts/trending?limit=5&offset=7');
    expect(linkUrl(middle, 'next')).toBe('http://localhost/api/v1/posts/trending?limit=5&offset=12');
    expect(linkUrl(middle, 'prev')).toBe('http://localhost/api/v1/posts/trending?limit=5&offset=2');
    const last = await app.inject({ url: '/api/v1/posts/trending?limit=5&offset=10' });
    expect(linkUrl(last.headers.link as string | undefined, 'next')).toBeUndefined();
  });
});

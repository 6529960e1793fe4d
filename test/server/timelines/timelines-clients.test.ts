/**
 * Real Mastodon clients through the service: masto.js lists home and local timelines,
 * follows `next` to the end with no repeated id and sees the recommendation fields
 * (camel-cased) on injected statuses; megalodon decodes every status of a page.
 */
import { createRestAPIClient, type mastodon } from 'masto';
import megalodonModule from 'megalodon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonInstance, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { timelinesHarness, type TimelinesHarness } from './timelines-test-app.js';

// megalodon is CommonJS: its default export is `module.exports.default` under Node's ESM rules.
type Generator = typeof megalodonModule.default;
const generator: Generator = (megalodonModule as unknown as { default?: Generator }).default ?? (megalodonModule as unknown as Generator);

let instance: MastodonTestInstance;
let h: TimelinesHarness;
let base: string;

beforeAll(async () => {
  instance = await startMastodonInstance({ statuses: 120 });
  // The default instance stands in for X-Social-Instance (megalodon cannot send extra headers).
  h = await timelinesHarness({ defaultInstance: instance.host });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const address = h.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  // Candidates by authors the instance does not know: they are never on its pages.
  const own = instance.publicTimeline().slice(0, 10);
  const copies = Array.from({ length: 30 }, (_, a) =>
    own.slice(0, 4).map((status, k) => ({
      ...status,
      id: `8${a}0${k}${status.id as string}`.slice(0, 24),
      uri: `https://copies.example/users/c${a}/statuses/${k}`,
      url: null,
      account: { ...(status.account as Json), id: `c${a}`, username: `copy${a}`, acct: `copy${a}@copies.example`, note: '' },
    })),
  ).flat();
  await h.seed(copies, instance);
});

afterAll(async () => {
  await h.close();
  await instance.close();
});

async function walk(paginator: AsyncIterable<mastodon.v1.Status[]>): Promise<mastodon.v1.Status[][]> {
  const pages: mastodon.v1.Status[][] = [];
  for await (const page of paginator) {
    pages.push(page);
    if (pages.length > 100) throw new Error('paging does not end');
  }
  return pages;
}

type Blended = mastodon.v1.Status & { isRecommendation?: boolean; recommendationMetadata?: { reasonCode?: string } };

function check(pages: mastodon.v1.Status[][], expected: readonly Json[]): void {
  const all = pages.flat() as Blended[];
  const ids = all.map((status) => status.id);
  expect(new Set(ids).size, 'no repeated id').toBe(ids.length);
  const real = all.filter((status) => status.isRecommendation === false);
  expect(real.map((status) => status.id)).toEqual(expected.map((status) => status.id));
  const injected = all.filter((status) => status.isRecommendation === true);
  // Every full page came through the service (the Link pointed back at it): each has recommendations.
  for (const page of pages.filter((p) => p.length >= 10)) expect(page.some((s) => (s as Blended).isRecommendation === true)).toBe(true);
  expect(injected.length).toBeGreaterThan(0);
  for (const status of injected) {
    expect(status.recommendationMetadata?.reasonCode).toEqual(expect.any(String));
    expect(typeof status.createdAt).toBe('string');
    expect(status.account.username).toMatch(/^copy\d+$/);
  }
}

describe('masto.js through the service', () => {
  it('walks the whole home timeline with X-Social-Instance, no repeats, recommendations marked', async () => {
    const token = instance.issueToken(0);
    const client = createRestAPIClient({ url: base, accessToken: token, requestInit: { headers: { 'X-Social-Instance': instance.host } } });
    const pages = await walk(client.v1.timelines.home.list({ limit: 10 }));
    expect(pages.length).toBeGreaterThan(2);
    check(pages, instance.homeTimeline(0));
  });

  it('walks the whole remote public timeline (default instance): the candidates, all remote, belong on it', async () => {
    const client = createRestAPIClient({ url: base, accessToken: instance.issueToken(1) });
    const pages = await walk(client.v1.timelines.public.list({ remote: true, limit: 15 }));
    check(pages, instance.publicTimeline({ remote: true }));
  });

  it('walks the local public timeline with none of the remote candidates woven in', async () => {
    const client = createRestAPIClient({ url: base, accessToken: instance.issueToken(1) });
    const pages = await walk(client.v1.timelines.public.list({ local: true, limit: 15 }));
    const all = pages.flat() as Blended[];
    expect(all.filter((status) => status.isRecommendation === false).map((status) => status.id)).toEqual(
      instance.publicTimeline({ local: true }).map((status) => status.id),
    );
    expect(all.filter((status) => status.isRecommendation === true)).toEqual([]);
  });
});

describe('megalodon through the service', () => {
  it('decodes every status of a home page', async () => {
    const client = generator('mastodon', base, instance.issueToken(2));
    const response = await client.getHomeTimeline({ limit: 20 });
    expect(response.status).toBe(200);
    const direct = instance.homeTimeline(2).slice(0, 20);
    expect(response.data.length).toBeGreaterThan(direct.length);
    for (const status of response.data) {
      expect(typeof status.id).toBe('string');
      expect(typeof status.account.acct).toBe('string');
      expect(typeof status.created_at).toBe('string');
    }
    expect(response.data.map((status) => status.id).filter((id) => direct.some((s) => s.id === id))).toEqual(direct.map((s) => s.id));
  });
});

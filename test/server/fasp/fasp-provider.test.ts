/**
 * recsvc as a FASP provider, end to end against a fake Mastodon that behaves as Mastodon's
 * FASP client does (test/helpers/fake-mastodon-fasp.ts): registration, the admin's
 * confirmation (a signed GET /provider_info), capability activation as Mastodon sends it
 * (major version, empty body and its digest), the trends call with Mastodon's parameters,
 * and the refusals (unsigned, wrong key, tampered, stale, capability not enabled).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerWithServer } from '../../../server/fasp/fasp-registration.service.js';
import { FaspService } from '../../../server/fasp/fasp.service.js';
import { faspSettingsFrom } from '../../../server/fasp/fasp.settings.js';
import { writeInstanceStatuses } from '../../../server/posts/instance-statuses.js';
import type { StatusInput } from '../../../src/schemas/post.schema.js';
import { insertEngagements, usersOf } from '../../helpers/engagements.js';
import { FakeMastodon } from '../../helpers/fake-mastodon-fasp.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { DEFAULT_RATE_LIMIT_POLICY } from '../../../src/rate-limit/policy.js';

let t: TestApp;
let mastodon: FakeMastodon;
let baseUrl: string;
const faspKey = randomBytes(32);

beforeEach(async () => {
  t = await createTestApp({ fasp: { settings: faspSettingsFrom({ RECSVC_FASP_NAME: 'recsvc test' }), faspKey } });
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `${address}/fasp`;
  mastodon = await FakeMastodon.start();
});
afterEach(async () => {
  await mastodon.close();
  await t.close();
});

async function register(): Promise<void> {
  const service = new FaspService(t.database.db, faspKey);
  const registration = await registerWithServer(service, faspKey, {
    serverBaseUrl: mastodon.url,
    name: 'recsvc test',
    faspBaseUrl: baseUrl,
  });
  expect(registration.server.fingerprint).toBe(mastodon.providerFingerprint());
  expect(registration.server.faspId).toBe(mastodon.faspId);
  expect(registration.registrationCompletionUri).toBe(`${mastodon.url}/admin/fasp/providers/1`);
}

let n = 0;
function statusOf(host: string, options: { ageHours: number; language?: string; indexable?: boolean; visibility?: string }): StatusInput {
  n += 1;
  const base = makeStatus({ n, author: `a${n}`, ageHours: options.ageHours, language: options.language ?? 'en' });
  return {
    ...base,
    visibility: (options.visibility ?? 'public') as NonNullable<StatusInput['visibility']>,
    uri: `https://${host}/users/a${n}/statuses/${n}`,
    account: {
      ...base.account,
      id: `${n}`,
      uri: `https://${host}/users/a${n}`,
      indexable: options.indexable ?? true,
      discoverable: true,
    } as StatusInput['account'],
  };
}

describe('registration and confirmation', () => {
  it('registers, and the confirmation reads the signed provider info', async () => {
    await register();
    expect(mastodon.provider).toMatchObject({ name: 'recsvc test', baseUrl });
    const info = await mastodon.confirm();
    expect(info.status).toBe(200);
    expect(info.valid).toBe(true);
    expect(JSON.parse(info.body)).toEqual({
      name: 'recsvc test',
      privacyPolicy: [],
      capabilities: ['trends', 'follow_recommendation', 'account_search', 'data_sharing', 'callback'].map((id) => ({ id, version: '0.1' })),
    });
  });
});

describe('authentication', () => {
  beforeEach(register);

  it('answers 401 in the error body to unsigned, wrongly signed, stale and tampered requests', async () => {
    for (const options of [{ unsigned: true }, { wrongKey: true }, { createdSeconds: Math.floor(Date.now() / 1000) - 600 }]) {
      const response = await mastodon.request('GET', '/provider_info', options);
      expect(response.status, JSON.stringify(options)).toBe(401);
      expect(JSON.parse(response.body)).toMatchObject({ status_code: 401 });
    }
    const tampered = await mastodon.request('POST', '/capabilities/trends/0/activation', { body: '{}', sentBody: '{"x":1}' });
    expect(tampered.status).toBe(401);
    expect(JSON.parse(tampered.body).message).toContain('content-digest');
  });

  it('refuses a request re-targeted to another path than the signed one', async () => {
    const response = await fetch(`${baseUrl}/provider_info`, { headers: await signedHeadersFor('/trends/v0/content') });
    expect(response.status).toBe(401);
  });
});

/** Headers Mastodon signed for `path`, to replay against another. */
async function signedHeadersFor(path: string): Promise<Record<string, string>> {
  let captured: Record<string, string> = {};
  const original = globalThis.fetch;
  globalThis.fetch = (async (_url: string, init: RequestInit) => {
    captured = init.headers as Record<string, string>;
    return new Response('', { status: 599 });
  }) as typeof fetch;
  try {
    await mastodon.request('GET', path);
  } finally {
    globalThis.fetch = original;
  }
  return captured;
}

describe('capabilities and trends', () => {
  beforeEach(async () => {
    await register();
    await mastodon.confirm();
  });

  it('activates as Mastodon does (major version, empty signed body), 404 for unknown ones, and deactivates', async () => {
    const before = await mastodon.trends('en');
    expect(before.status).toBe(404);
    const enabled = await mastodon.setCapability('trends', true);
    expect(enabled.status).toBe(204);
    expect(enabled.valid).toBe(true);
    expect((await mastodon.trends('en')).status).toBe(200);
    expect((await mastodon.request('POST', '/capabilities/status_search/0/activation')).status).toBe(404);
    expect((await mastodon.request('POST', '/capabilities/trends/1/activation')).status).toBe(404);
    expect((await mastodon.setCapability('trends', false)).status).toBe(204);
    expect((await mastodon.trends('en')).status).toBe(404);
  });

  it("serves trending content for Mastodon's query: consenting public posts of the window and language, ranks 1-100 descending", async () => {
    await mastodon.setCapability('trends', true);
    const top = statusOf('one.example', { ageHours: 1 });
    const second = statusOf('two.example', { ageHours: 2, language: 'en-GB' });
    const german = statusOf('two.example', { ageHours: 1, language: 'de' });
    const old = statusOf('one.example', { ageHours: 6 });
    const notIndexable = statusOf('one.example', { ageHours: 1, indexable: false });
    const unlisted = statusOf('one.example', { ageHours: 1, visibility: 'unlisted' });
    const all = [top, second, german, old, notIndexable, unlisted];
    const written = await t.database.db.transaction().execute((trx) => writeInstanceStatuses(trx, 'one.example', all, Date.now()));
    const ids = written.ids.map((id) => id!);
    await insertEngagements(t.database.db, [
      { postId: ids[0]!, userIds: [...usersOf('x.example', 7), ...usersOf('y.example', 7)] },
      { postId: ids[1]!, userIds: usersOf('x.example', 3) },
      { postId: ids[2]!, userIds: usersOf('x.example', 7) },
      { postId: ids[3]!, userIds: usersOf('x.example', 31) },
      { postId: ids[4]!, userIds: usersOf('x.example', 31) },
      { postId: ids[5]!, userIds: usersOf('x.example', 31) },
    ]);

    const response = await mastodon.trends('en');
    expect(response.status).toBe(200);
    expect(response.valid).toBe(true);
    const content = (JSON.parse(response.body) as { content: { uri: string; rank: number }[] }).content;
    expect(content.map((c) => c.uri)).toEqual([top.uri, second.uri]);
    for (const item of content) expect(Number.isInteger(item.rank) && item.rank >= 1 && item.rank <= 100).toBe(true);
    expect(content[0]!.rank).toBeGreaterThan(content[1]!.rank);

    const german0 = JSON.parse((await mastodon.trends('de')).body) as { content: { uri: string }[] };
    expect(german0.content.map((c) => c.uri)).toEqual([german.uri]);
    const week = await mastodon.request('GET', '/trends/v0/content?withinLastHours=168');
    expect((JSON.parse(week.body) as { content: { uri: string }[] }).content.map((c) => c.uri)).toContain(old.uri);
    expect((await mastodon.request('GET', '/trends/v0/content?withinLastHours=169')).status).toBe(400);
  });

  it('serves trending hashtags and links of the same consenting posts, with examples', async () => {
    await mastodon.setCapability('trends', true);
    const card = { url: 'https://news.example/a', title: 'A' };
    const tagged = { ...statusOf('one.example', { ageHours: 1 }), tags: [{ name: 'Cats', url: 'https://one.example/tags/cats' }], card };
    const also = {
      ...statusOf('two.example', { ageHours: 1 }),
      tags: [
        { name: 'cats', url: 'https://two.example/tags/cats' },
        { name: 'dogs', url: 'https://two.example/tags/dogs' },
      ],
    };
    const hidden = {
      ...statusOf('one.example', { ageHours: 1, indexable: false }),
      tags: [{ name: 'secret', url: 'https://one.example/tags/secret' }],
      card: { url: 'https://secret.example/' },
    };
    const written = await t.database.db
      .transaction()
      .execute((trx) => writeInstanceStatuses(trx, 'one.example', [tagged, also, hidden], Date.now()));
    const ids = written.ids.map((id) => id!);
    await insertEngagements(t.database.db, [
      { postId: ids[0]!, userIds: usersOf('x.example', 7) },
      { postId: ids[1]!, userIds: usersOf('x.example', 3) },
      { postId: ids[2]!, userIds: usersOf('x.example', 31) },
    ]);
    const hashtags = await mastodon.request('GET', '/trends/v0/hashtags?language=en&maxCount=20&withinLastHours=4');
    expect(hashtags.valid).toBe(true);
    const tags = (JSON.parse(hashtags.body) as { hashtags: { name: string; rank: number; examples: string[] }[] }).hashtags;
    expect(tags.map((tag) => tag.name)).toEqual(['#cats', '#dogs']);
    expect(tags[0]!.examples).toEqual([tagged.uri, also.uri]);
    expect(tags[0]!.rank).toBeGreaterThan(tags[1]!.rank);
    const links = await mastodon.request('GET', '/trends/v0/links?language=en&maxCount=20&withinLastHours=4');
    expect(JSON.parse(links.body)).toMatchObject({ links: [{ url: card.url, examples: [tagged.uri] }] });
  });
});

describe('rate limits', () => {
  it("answer 429 with Retry-After in the error body once a server's FASP windows are spent, and the windows are the FASP's own", async () => {
    // The same provider with rate limits on: 3 FASP calls per 5 minutes per address (the default is 300).
    await t.close();
    await mastodon.close();
    t = await createTestApp({
      fasp: { settings: faspSettingsFrom({ RECSVC_FASP_NAME: 'recsvc test' }), faspKey },
      rateLimit: { ...DEFAULT_RATE_LIMIT_POLICY, fasp: [{ seconds: 300, max: 3 }] },
    });
    baseUrl = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/fasp`;
    mastodon = await FakeMastodon.start();
    await register();
    await mastodon.setCapability('trends', true);
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<FakeMastodon['trends']>> | undefined;
    for (let i = 0; i < 4 && refused === undefined; i += 1) {
      const response = await mastodon.trends('en');
      statuses.push(response.status);
      if (response.status === 429) refused = response;
      else expect(response.headers['x-ratelimit-limit']).toBe('3');
    }
    // The activation was one of the 3; the trends calls take the rest, then the 429.
    expect(statuses).toEqual([200, 200, 429]);
    const retryAfter = Number(refused!.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 300).toBe(true);
    expect(JSON.parse(refused!.body)).toMatchObject({ error: 'Rate limit exceeded', status_code: 429 });
    // Other routes keep the tier's windows: the FASP windows are not theirs.
    expect((await t.app.inject({ url: '/api/v1/health' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/v1/posts/trending' })).statusCode).toBe(200);
  });
});

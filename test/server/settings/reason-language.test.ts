/**
 * Reasons in the reader's language over real HTTP: Accept-Language (de, fr, q-values,
 * fallback to English), the user's reason_language winning over the header, the ranked
 * list cache never serving one language's reasons to another, and the headers that say so.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localiseReasonText, REASON_TEXTS } from '../../../src/ranking/reason-text.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { settingsHarness, type SettingsHarness } from './settings-test-app.js';

let h: SettingsHarness;

type Item = { id: string; recommendation_reason: string; recommendation_metadata: { reason_string: string } };

beforeEach(async () => {
  h = await settingsHarness();
  const statuses = Array.from({ length: 12 }, (_, i) =>
    makeStatus({
      n: i + 1,
      author: ['ann', 'ben', 'cat'][i % 3],
      tags: [['cats', 'rust'][i % 2] ?? 'cats'],
      text: `post ${i}`,
      favourites: i,
    }),
  );
  const seeded = await h.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await h.adminHeaders(), payload: { statuses } });
  expect(seeded.statusCode, seeded.body).toBe(201);
});
afterEach(async () => {
  await h.close();
});

async function recommend(userId: string, acceptLanguage?: string) {
  return h.app.inject({
    url: `/api/v1/recommendations?user_id=${userId}&limit=10`,
    headers: { ...(await h.userHeaders(userId)), ...(acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage }) },
  });
}

function reasons(body: Item[]): string[] {
  return body.map((item) => item.recommendation_reason);
}

const allOf = (language: keyof typeof REASON_TEXTS) => Object.values(REASON_TEXTS[language]).map((t) => t.split('{')[0] as string);
const isIn = (language: keyof typeof REASON_TEXTS) => (text: string) => allOf(language).some((prefix) => text.startsWith(prefix));

describe('Accept-Language picks the language of reasons', () => {
  it('German, French, Spanish; English without the header; the same posts in the same order', async () => {
    const english = await recommend('alice');
    expect(english.statusCode, english.body).toBe(200);
    expect(english.headers['content-language']).toBe('en');
    const base = english.json<Item[]>();
    expect(base.length).toBeGreaterThan(0);
    expect(reasons(base).every(isIn('en'))).toBe(true);
    for (const language of ['de', 'fr', 'es'] as const) {
      const response = await recommend('alice', language);
      expect(response.headers['content-language']).toBe(language);
      expect(response.headers.vary).toContain('Accept-Language');
      const body = response.json<Item[]>();
      expect(body.map((item) => item.id)).toEqual(base.map((item) => item.id));
      expect(reasons(body)).toEqual(reasons(base).map((text) => localiseReasonText(text, language)));
      expect(reasons(body)).not.toEqual(reasons(base));
      for (const item of body) expect(item.recommendation_metadata.reason_string).toBe(item.recommendation_reason);
    }
  });

  it('follows q-values and region tags, and falls back to English for languages it does not speak', async () => {
    const base = reasons((await recommend('alice')).json<Item[]>());
    const german = reasons(base.map((text) => ({ recommendation_reason: localiseReasonText(text, 'de') })) as Item[]);
    expect(reasons((await recommend('alice', 'en;q=0.3, de-AT;q=0.9, fr;q=0.8')).json<Item[]>())).toEqual(german);
    expect(reasons((await recommend('alice', 'ja, de;q=0.1')).json<Item[]>())).toEqual(german);
    const fallback = await recommend('alice', 'ja, pt-BR;q=0.9');
    expect(fallback.headers['content-language']).toBe('en');
    expect(reasons(fallback.json<Item[]>())).toEqual(base);
  });

  it('the cached ranked list never carries one caller language to the next request', async () => {
    const german = await recommend('alice', 'de');
    const english = await recommend('alice');
    const french = await recommend('alice', 'fr');
    expect(reasons(english.json<Item[]>()).every(isIn('en'))).toBe(true);
    expect(reasons(german.json<Item[]>()).every(isIn('de'))).toBe(true);
    expect(reasons(french.json<Item[]>()).every(isIn('fr'))).toBe(true);
  });
});

describe("the user's reason_language wins over Accept-Language", () => {
  it('a user who chose Spanish gets Spanish whatever the header; null gives the header back its say', async () => {
    const set = await h.app.inject({
      method: 'PATCH',
      url: '/api/v1/settings',
      headers: await h.userHeaders('alice'),
      payload: { reason_language: 'es' },
    });
    expect(set.statusCode, set.body).toBe(200);
    for (const header of [undefined, 'de', 'fr;q=1']) {
      const response = await recommend('alice', header);
      expect(response.headers['content-language']).toBe('es');
      expect(reasons(response.json<Item[]>()).every(isIn('es'))).toBe(true);
    }
    // Another user keeps following their header.
    expect((await recommend('bob', 'de')).headers['content-language']).toBe('de');
    await h.app.inject({
      method: 'PATCH',
      url: '/api/v1/settings',
      headers: await h.userHeaders('alice'),
      payload: { reason_language: null },
    });
    expect((await recommend('alice', 'de')).headers['content-language']).toBe('de');
  });

  it('GET /api/v1/settings reports the effective language for the request', async () => {
    const headers = { ...(await h.userHeaders('alice')), 'accept-language': 'fr-CH, de;q=0.5' };
    expect((await h.app.inject({ url: '/api/v1/settings', headers })).json().data.effective_reason_language).toBe('fr');
    await h.app.inject({
      method: 'PATCH',
      url: '/api/v1/settings',
      headers: await h.userHeaders('alice'),
      payload: { reason_language: 'de' },
    });
    expect((await h.app.inject({ url: '/api/v1/settings', headers })).json().data).toMatchObject({
      reason_language: 'de',
      effective_reason_language: 'de',
    });
  });
});

describe('seamless recommendations', () => {
  it('localise the reason of each item', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/seamless',
      headers: { ...(await h.userHeaders('alice')), 'accept-language': 'fr' },
      payload: {
        user_id: 'alice',
        timeline_type: 'home',
        existing_statuses: Array.from({ length: 10 }, (_, i) => ({ id: `x${i}`, content: `timeline ${i}`, author: 'zed' })),
        max_recommendations: 5,
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const items = response.json<Array<{ reason: string }>>();
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((item) => isIn('fr')(item.reason))).toBe(true);
  });
});

describe('routes without reasons', () => {
  it('are left as they are: no Content-Language, no Vary on Accept-Language', async () => {
    const response = await h.app.inject({
      url: '/api/v1/recommendations/preferences?user_id=alice',
      headers: { ...(await h.userHeaders('alice')), 'accept-language': 'de' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-language']).toBeUndefined();
    expect(String(response.headers.vary ?? '')).not.toContain('Accept-Language');
  });
});

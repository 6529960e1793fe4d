/**
 * Export and erasure over real HTTP on a real database: the export holds every row of the
 * caller (raw id or pseudonym, every table with a user_id column, found from the schema) and
 * nothing of anyone else; erasure leaves no row of the user in any table (every text column
 * of every table scanned for the raw id and the pseudonym), revokes their tokens, is
 * harmless when repeated, and writes racing it leave nothing behind. Level changes erase
 * what the new level may not keep.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRagRuntime, type RagRuntime } from '../../../server/rag/rag.feature.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import {
  countUserRows,
  privacyHarness,
  rowsHolding,
  seedEveryUserTable,
  tablesWithUserId,
  type PrivacyHarness,
} from './privacy-test-app.js';

const ALICE = 'acc-alice@social.example';
const BOB = 'acc-bob@social.example';

let h: PrivacyHarness;
let rag: RagRuntime;
beforeEach(async () => {
  rag = createRagRuntime();
  h = await privacyHarness({ rag });
  const statuses = [1, 2, 3, 4].map((n) => makeStatus({ n, author: n === 4 ? 'alice' : `a${n}`, tags: ['cats'] }));
  const stored = await h.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await h.adminHeaders(), payload: { statuses } });
  expect(stored.statusCode).toBe(201);
});
afterEach(async () => {
  await h.close();
});

async function interact(userId: string, n: number, action = 'favorite'): Promise<number> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/api/v1/interactions',
    headers: await h.userHeaders(userId),
    payload: { user_id: userId, post_id: postId(n), action_type: action },
  });
  return response.statusCode;
}

/** Rows of both users: through the API (interactions, settings) and one in every user table, by raw id and by pseudonym. */
async function seedBoth(): Promise<void> {
  for (const user of [ALICE, BOB]) {
    for (const n of [1, 2, 3]) expect(await interact(user, n)).toBeLessThan(300);
    const settings = await h.app.inject({
      method: 'PATCH',
      url: '/api/v1/settings',
      headers: await h.userHeaders(user),
      payload: { experiments_opt_out: true, languages: ['en'] },
    });
    expect(settings.statusCode).toBe(200);
    await seedEveryUserTable(h.database.db, user);
    await seedEveryUserTable(h.database.db, h.policy.pseudonym(user));
  }
  await h.database.db
    .insertInto('integration_settings')
    .values({ name: 'seeded_by_alice', value: '1', updated_at_ms: 1, updated_by: ALICE })
    .execute();
}

async function exportOf(userId: string): Promise<any> {
  const response = await h.app.inject({ url: '/api/v1/privacy/export', headers: await h.userHeaders(userId) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

async function erase(headers: Record<string, string>, query = ''): Promise<{ status: number; data: any }> {
  const response = await h.app.inject({ method: 'DELETE', url: `/api/v1/privacy/data${query}`, headers });
  return { status: response.statusCode, data: response.json().data };
}

describe('GET /api/v1/privacy/export', () => {
  it("holds every row of the caller, by raw id and pseudonym, in every user table, and nothing of anyone else's", async () => {
    await seedBoth();
    const data = await exportOf(ALICE);
    const keys = [ALICE, h.policy.pseudonym(ALICE)];
    expect(data.user_id).toBe(ALICE);
    expect(data.pseudonym).toBe(keys[1]);
    expect(data.privacy.tracking_level).toBe('limited');
    const expected = await countUserRows(h.database.db, keys);
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(14);
    for (const [table, count] of Object.entries(expected)) {
      expect(count, table).toBeGreaterThan(0);
      expect(data.tables[table], table).toHaveLength(count);
      for (const row of data.tables[table]) expect(keys, table).toContain(row.user_id);
    }
    expect(data.tables.interactions.filter((row: any) => row.user_id === ALICE)).toHaveLength(4);
    expect(data.tables.integration_settings).toEqual([{ name: 'seeded_by_alice', updated_at_ms: 1, updated_by: ALICE }]);
    const text = JSON.stringify(data);
    expect(text).not.toContain(BOB);
    expect(text).not.toContain(h.policy.pseudonym(BOB));
    // Secrets never leave: no hashes, no PKCE challenge, no binary columns.
    for (const rows of Object.values<Array<Record<string, unknown>>>(data.tables)) {
      for (const row of rows) for (const column of Object.keys(row)) expect(column).not.toMatch(/_hash$|code_challenge|weights/);
    }
    expect(data.tables.tokens.length).toBeGreaterThan(0);
  });
});

describe('DELETE /api/v1/privacy/data', () => {
  it("leaves no row of the user in any table, revokes their tokens, keeps everyone else's, and is harmless repeated", async () => {
    await seedBoth();
    const aliceKeys = [ALICE, h.policy.pseudonym(ALICE)];
    const bobKeys = [BOB, h.policy.pseudonym(BOB)];
    const bobBefore = await countUserRows(h.database.db, bobKeys);
    const bobHolding = await rowsHolding(h.database.db, bobKeys);
    expect(Object.keys(await rowsHolding(h.database.db, aliceKeys)).length).toBeGreaterThan(10);
    const headers = await h.userHeaders(ALICE);

    const first = await erase(headers);
    expect(first.status).toBe(200);
    expect(first.data.user_id).toBe(ALICE);
    expect(first.data.rows_deleted).toBeGreaterThan(20);
    expect(first.data.credentials_revoked).toBeGreaterThanOrEqual(1);
    for (const table of await tablesWithUserId(h.database.db)) expect(first.data.deleted[table], table).toBeGreaterThan(0);

    expect(await rowsHolding(h.database.db, aliceKeys)).toEqual({});
    expect(await countUserRows(h.database.db, bobKeys)).toEqual(bobBefore);
    expect(await rowsHolding(h.database.db, bobKeys)).toEqual(bobHolding);
    // The setting keeps its value without naming the erased admin.
    const setting = await h.database.db
      .selectFrom('integration_settings')
      .selectAll()
      .where('name', '=', 'seeded_by_alice')
      .executeTakeFirst();
    expect(setting).toMatchObject({ value: '1', updated_by: null });
    // Her token is revoked at once (the token cache was emptied).
    expect((await h.app.inject({ url: '/api/v1/privacy', headers })).statusCode).toBe(401);

    const again = await erase(await h.adminHeaders(), `?user_id=${encodeURIComponent(ALICE)}`);
    expect(again.status).toBe(200);
    expect(again.data).toMatchObject({ user_id: ALICE, rows_deleted: 0, credentials_revoked: 0, deleted: {} });
    expect(h.policy.levelOf(ALICE)).toBe('limited');
  });

  it('writes racing the erasure leave nothing behind', async () => {
    await seedBoth();
    const headers = await h.userHeaders(ALICE);
    const admin = await h.adminHeaders();
    const writes = (): Array<Promise<unknown>> => [
      interact(ALICE, 4, 'reblog'),
      interact(ALICE, 1, 'bookmark'),
      h.app.inject({ method: 'PATCH', url: '/api/v1/settings', headers, payload: { include_reblogs: false } }),
      h.app.inject({
        method: 'POST',
        url: '/api/v1/interactions',
        headers: admin,
        payload: { user_id: ALICE, post_id: postId(2), action_type: 'bookmark' },
      }),
    ];
    const racing = [...writes(), erase(headers), ...writes(), ...writes()];
    const results = await Promise.all(racing);
    expect((results[4] as { status: number }).status).toBe(200);
    expect(await rowsHolding(h.database.db, [ALICE, h.policy.pseudonym(ALICE)])).toEqual({});
  });

  it("removes the chunks of the user's posts from the RAG index (other authors' stay)", async () => {
    await seedBoth();
    await h.app.agentRunner.runNow('rag_indexer');
    const index = rag.index;
    expect(index.postIds()).toContain(postId(4));
    const result = await erase(await h.userHeaders(ALICE));
    expect(result.data.rag_chunks_removed).toBe(1);
    expect(index.postIds()).not.toContain(postId(4));
    expect(index.postIds()).toContain(postId(1));
  });
});

describe('changing the tracking level', () => {
  it("to none takes the user's posts out of the RAG index, and the indexer leaves them out", async () => {
    await h.app.agentRunner.runNow('rag_indexer');
    expect(rag.index.postIds()).toContain(postId(4));
    const headers = await h.userHeaders(ALICE);
    const toNone = await h.app.inject({ method: 'PATCH', url: '/api/v1/privacy', headers, payload: { tracking_level: 'none' } });
    expect(toNone.json().data.erased.rag_chunks_removed).toBe(1);
    expect(rag.index.postIds()).not.toContain(postId(4));
    expect((await h.app.agentRunner.runNow('rag_indexer')).status).toBe('success');
    expect(rag.index.postIds()).not.toContain(postId(4));
    expect(rag.index.postIds()).toContain(postId(1));
    await h.app.inject({ method: 'PATCH', url: '/api/v1/privacy', headers, payload: { tracking_level: 'full' } });
    await h.app.agentRunner.runNow('rag_indexer');
    expect(rag.index.postIds()).toContain(postId(4));
  });

  it('to none erases the tracking data (settings and tokens stay); to limited the event-level rows; to full nothing', async () => {
    await seedBoth();
    const headers = await h.userHeaders(ALICE);
    const keys = [ALICE, h.policy.pseudonym(ALICE)];
    const toFull = await h.app.inject({ method: 'PATCH', url: '/api/v1/privacy', headers, payload: { tracking_level: 'full' } });
    expect(toFull.json().data.erased).toBeNull();
    const toLimited = await h.app.inject({ method: 'PATCH', url: '/api/v1/privacy', headers, payload: { tracking_level: 'limited' } });
    expect(toLimited.statusCode).toBe(200);
    expect(Object.keys(toLimited.json().data.erased.deleted).sort()).toEqual([
      'analytics_events',
      'experiment_impressions',
      'interleaving_impressions',
    ]);
    let counts = await countUserRows(h.database.db, keys);
    expect(counts.analytics_events).toBe(0);
    expect(counts.experiment_impressions).toBe(0);
    expect(counts.interleaving_impressions).toBe(0);
    expect(counts.interactions).toBeGreaterThan(0);

    const toNone = await h.app.inject({ method: 'PATCH', url: '/api/v1/privacy', headers, payload: { tracking_level: 'none' } });
    expect(toNone.statusCode).toBe(200);
    expect(toNone.json().data).toMatchObject({ tracking_level: 'none', source: 'user', stores_interactions: false });
    counts = await countUserRows(h.database.db, keys);
    for (const [table, count] of Object.entries(counts)) {
      const kept = ['privacy_settings', 'user_settings', 'tokens', 'oauth_codes', 'oauth_consents', 'oauth_token_families'].includes(table);
      if (kept) expect(count, table).toBeGreaterThan(0);
      else expect(count, table).toBe(0);
    }
    // Still signed in, now at none.
    expect((await h.app.inject({ url: '/api/v1/privacy', headers })).json().data.tracking_level).toBe('none');
  });
});

/**
 * Tracking level `none` means non-personalised lists, whatever rows the database still holds:
 * a user whose history was stored at `full` and who is then at `none` (the deployment's
 * default changed at a restart, before the retention agent's next pass purged the rows)
 * gets the same list as a stranger with no history, while at `full` the history shapes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingLevel } from '../../../src/privacy/tracking-level.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { privacyHarness, type PrivacyHarness } from './privacy-test-app.js';

const AUTHORS = Array.from({ length: 10 }, (_, i) => `author${i + 1}`);
const TAGS = ['cats', 'rust', 'music', 'art', 'birds'];
const READER = 'reader@example.social';
const STRANGER = 'stranger@example.social';

let dir: string;
let dbPath: string;

async function open(defaultLevel: TrackingLevel): Promise<PrivacyHarness> {
  return privacyHarness({ dbPath, policy: { defaultLevel } });
}

async function listOf(h: PrivacyHarness, userId: string): Promise<string[]> {
  const res = await h.app.inject({ url: `/api/v1/recommendations?user_id=${userId}&limit=15`, headers: await h.userHeaders(userId) });
  expect(res.statusCode).toBe(200);
  return res.json<{ id: string }[]>().map((s) => s.id);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'recsvc-none-'));
  dbPath = join(dir, 'recsvc.db');
  const h = await open('full');
  const statuses = Array.from({ length: 40 }, (_, i) =>
    makeStatus({
      n: i + 1,
      author: AUTHORS[i % AUTHORS.length],
      tags: [TAGS[i % TAGS.length] ?? 'cats'],
      text: `${TAGS[i % TAGS.length]} notes number ${i + 1}`,
      ageHours: 1 + (i % 7) * 2,
      favourites: (i * 5) % 17,
      reblogs: i % 4,
    }),
  );
  const posted = await h.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await h.adminHeaders(), payload: { statuses } });
  expect(posted.statusCode).toBe(201);
  // The reader likes everything author7 wrote about birds and music: a strong, visible preference.
  const headers = await h.userHeaders(READER);
  for (const status of statuses.filter((s) => s.account.username === 'author7').slice(0, 3)) {
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers,
      payload: { user_id: READER, post_id: status.id, action_type: 'favorite' },
    });
    expect(res.statusCode).toBe(201);
  }
  await h.close();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('tracking level none: non-personalised recommendations', () => {
  it('at full the stored history shapes the list; at none the same stored rows are ignored and the list is a stranger’s', async () => {
    const full = await open('full');
    const personalised = await listOf(full, READER);
    const strangerAtFull = await listOf(full, STRANGER);
    await full.close();
    expect(personalised).not.toEqual(strangerAtFull);

    const none = await open('none');
    // The rows are still there (the retention agent has not run): only the level changed.
    const stored = await none.database.db.selectFrom('interactions').select('user_id').execute();
    expect(stored.length).toBeGreaterThan(0);
    const readerAtNone = await listOf(none, READER);
    const strangerAtNone = await listOf(none, STRANGER);
    await none.close();
    expect(readerAtNone).toEqual(strangerAtNone);
    expect(readerAtNone).not.toEqual(personalised);
  });
});

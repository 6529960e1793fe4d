/**
 * An erasure leaves none of the user's bytes in the database files: after
 * `DELETE /api/v1/privacy/data`, neither the SQLite file nor its WAL holds the user's id or
 * pseudonym anywhere — not in deleted cells, freed pages, or older copies of pages in the WAL
 * (the rows were gone before, yet the file held the id 23 times and the pseudonym 29 times).
 * Another user's rows, written the same way, are still found by the same scan (the control).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { TEST_BACKEND } from '../../helpers/test-database.js';
import { privacyHarness, seedEveryUserTable, type PrivacyHarness } from './privacy-test-app.js';

const ALICE = 'acc-alice-erased@social.example';
const BOB = 'acc-bob-kept@social.example';
/** Rows per user table and key: enough that the user's rows fill whole pages, which erasure then frees. */
const ROUNDS = 40;

let h: PrivacyHarness;
let dbPath: string;

beforeEach(async () => {
  dbPath = join(tempDir('recsvc-erasure-bytes-'), 'erasure.db');
  h = await privacyHarness({ dbPath, policy: { defaultLevel: 'full' } });
  const statuses = [1, 2, 3, 4, 5, 6].map((n) => makeStatus({ n, author: `a${n}`, tags: ['cats'] }));
  const stored = await h.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await h.adminHeaders(), payload: { statuses } });
  expect(stored.statusCode).toBe(201);
});
afterEach(async () => {
  await h.close();
});

/** Occurrences of `text` in the bytes of the database file and its WAL. */
function occurrences(text: string): number {
  const needle = Buffer.from(text, 'utf8');
  let found = 0;
  for (const file of [dbPath, `${dbPath}-wal`]) {
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) found += 1;
  }
  return found;
}

describe.skipIf(TEST_BACKEND !== 'sqlite')('erasure and the database files', () => {
  it("leaves no byte of the user's id or pseudonym in the SQLite file or its WAL", async () => {
    for (const user of [ALICE, BOB]) {
      for (const n of [1, 2, 3, 4, 5, 6]) {
        const response = await h.app.inject({
          method: 'POST',
          url: '/api/v1/interactions',
          headers: await h.userHeaders(user),
          payload: { user_id: user, post_id: postId(n), action_type: 'favorite' },
        });
        expect(response.statusCode, response.body).toBeLessThan(300);
      }
      for (let round = 0; round < ROUNDS; round++) {
        await seedEveryUserTable(h.database.db, user);
        await seedEveryUserTable(h.database.db, h.policy.pseudonym(user));
      }
    }
    const pseudonym = h.policy.pseudonym(ALICE);
    expect(occurrences(ALICE)).toBeGreaterThan(0);
    expect(occurrences(pseudonym)).toBeGreaterThan(0);

    const erased = await h.app.inject({ method: 'DELETE', url: '/api/v1/privacy/data', headers: await h.userHeaders(ALICE) });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json().data.rows_deleted).toBeGreaterThan(ROUNDS);

    expect({ id: occurrences(ALICE), pseudonym: occurrences(pseudonym) }).toEqual({ id: 0, pseudonym: 0 });
    expect(occurrences(BOB)).toBeGreaterThan(0);
    expect(occurrences(h.policy.pseudonym(BOB))).toBeGreaterThan(0);
  });
});

/**
 * The reads of a user's first request that come back as one JSON aggregate (server/platform/db/json-rows.ts)
 * return exactly what the rows hold, on either backend: every bit of a double, large integers,
 * text with quotes and non-ASCII characters, and nothing (not null) for a user without rows.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertAffinities, userAffinities, userInteractionPostIds } from '../../../server/interactions/interaction.repository.js';
import { openTestDatabase, withoutForeignKeys, type TestDatabase } from '../../helpers/test-database.js';
import { sql } from 'kysely';

let opened: TestDatabase;
beforeEach(async () => {
  opened = await openTestDatabase();
});
afterEach(async () => {
  await opened.close();
});

const AS_OF = 1_795_739_024_959;

describe('a user profile read as one JSON aggregate', () => {
  it('returns each affinity row exactly as stored', async () => {
    const rows = [
      { user_id: 'u1', kind: 'author', target: '109384756102938475', score: 0.1 + 0.2, as_of_ms: AS_OF },
      { user_id: 'u1', kind: 'tag', target: 'caf\u00e9 "quoted" \\ \u{1F980}', score: 5e-324, as_of_ms: AS_OF - 1 },
      { user_id: 'u1', kind: 'tag', target: 'rust', score: -1.7976931348623157e308, as_of_ms: 0 },
      { user_id: 'u2', kind: 'tag', target: 'rust', score: 1 / 3, as_of_ms: AS_OF },
    ];
    await insertAffinities(opened.database.db, rows);
    const read = await userAffinities(opened.database.db, 'u1');
    const expected = rows.filter((r) => r.user_id === 'u1').map(({ user_id: _, ...rest }) => rest);
    expect([...read].sort((a, b) => a.target.localeCompare(b.target))).toEqual(
      [...expected].sort((a, b) => a.target.localeCompare(b.target)),
    );
    // Bit for bit, not merely close.
    for (const row of read) expect(Object.is(row.score, expected.find((e) => e.target === row.target)?.score)).toBe(true);
  });

  it('reads nothing for a user without rows', async () => {
    expect(await userAffinities(opened.database.db, 'nobody')).toEqual([]);
    expect(await userInteractionPostIds(opened.database.db, 'nobody')).toEqual([]);
  });

  it("returns the post of each of the user's interactions", async () => {
    await withoutForeignKeys(opened.database.db, async (db) => {
      for (const [i, [user, post, action]] of [
        ['u1', '117685495602876263', 'favorite'],
        ['u1', '117685495602876263', 'bookmark'],
        ['u1', '2', 'reblog'],
        ['u2', '3', 'favorite'],
      ].entries()) {
        await sql`INSERT INTO interactions (id, user_id, post_id, action_type, context_json, created_at, created_at_ms)
          VALUES (${`i${i}`}, ${user}, ${post}, ${action}, NULL, ${new Date(AS_OF).toISOString()}, ${AS_OF})`.execute(db);
      }
    });
    expect((await userInteractionPostIds(opened.database.db, 'u1')).sort()).toEqual(['117685495602876263', '117685495602876263', '2']);
  });
});

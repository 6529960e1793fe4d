/**
 * The agents' large reads in chunks (server/ranking-state/chunked-read.ts): over a real SQLite
 * table the rows are those one statement gives, in its order, for limits below, at and above
 * the table's size and not a multiple of the chunk; and the event loop gets a turn between chunks.
 */
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readNewestInChunks } from '../../../server/ranking-state/chunked-read.js';

type Row = { id: string; user_id: string };
let sqlite: SQLite.Database;

beforeEach(() => {
  sqlite = new SQLite(':memory:');
  sqlite.exec('CREATE TABLE interactions (id TEXT PRIMARY KEY, user_id TEXT NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO interactions (id, user_id) VALUES (?, ?)');
  // Ids of one length (as the service's), inserted out of order.
  sqlite.transaction(() => {
    for (let i = 0; i < 2_345; i++) insert.run(String(100_000 + ((i * 7_919) % 2_345)), `u${i % 37}`);
  })();
});
afterEach(() => sqlite.close());

const oneStatement = (limit: number): Row[] =>
  sqlite.prepare('SELECT id, user_id FROM interactions ORDER BY id DESC LIMIT ?').all(limit) as Row[];

const chunked = (limit: number, chunk: number, turns?: { n: number }) =>
  readNewestInChunks<Row>(
    limit,
    async (before, n) => {
      if (turns) turns.n += 1;
      return (
        before === undefined
          ? sqlite.prepare('SELECT id, user_id FROM interactions ORDER BY id DESC LIMIT ?').all(n)
          : sqlite.prepare('SELECT id, user_id FROM interactions WHERE id < ? ORDER BY id DESC LIMIT ?').all(before, n)
      ) as Row[];
    },
    (row) => row.id,
    chunk,
  );

describe('readNewestInChunks', () => {
  it.each([
    [1, 100],
    [999, 100],
    [1_000, 100],
    [2_344, 500],
    [2_345, 500],
    [10_000, 500],
    [10_000, 2_345],
  ])('limit %i in chunks of %i: the rows of one statement, in its order', async (limit, chunk) => {
    expect(await chunked(limit, chunk)).toEqual(oneStatement(limit));
  });

  it('reads chunk by chunk, each statement after the event loop had a turn', async () => {
    const statements = { n: 0 };
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 0);
    try {
      const rows = await chunked(2_345, 200, statements);
      expect(rows).toHaveLength(2_345);
    } finally {
      clearInterval(ticker);
    }
    // 11 full chunks and a last one of 145 rows.
    expect(statements.n).toBe(12);
    expect(turns).toBeGreaterThan(0);
  });
});

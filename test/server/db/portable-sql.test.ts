import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../../server/platform/db/connection.js';
import { asFloat, countWhere, floor, greatest, least, power } from '../../../server/platform/db/portable-sql.js';

describe('portable SQL fragments (on SQLite)', () => {
  it('compute what their names say', async () => {
    const { db, close } = openSqlite(':memory:');
    const one = async (expression: ReturnType<typeof sql>): Promise<unknown> =>
      Object.values((await sql<Record<string, unknown>>`SELECT ${expression} AS v`.execute(db)).rows[0]!)[0];
    expect(await one(greatest(3, 7))).toBe(7);
    expect(await one(greatest(-2, 0))).toBe(0);
    expect(await one(least(3, 7))).toBe(3);
    expect(await one(power(2, -1))).toBe(0.5);
    expect(await one(sql`7 / ${asFloat(2)}`)).toBe(3.5);
    expect(await one(floor(sql`9.99`))).toBe(9);
    expect(await one(floor(sql`-0.5`))).toBe(-1);
    const counted = await sql<{ evens: number; none: number }>`
      SELECT ${countWhere(sql`x % 2 = 0`)} AS evens, ${countWhere(sql`x > 100`)} AS none
      FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 4) AS numbers`.execute(db);
    expect(counted.rows[0]).toEqual({ evens: 2, none: 0 });
    await close();
  });
});

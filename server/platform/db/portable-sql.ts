/**
 * SQL fragments spelled so that they mean the same in SQLite and PostgreSQL. Repositories
 * use these instead of one dialect's own forms (SQLite's two-argument max() and min(),
 * SUM over a boolean, pow(), CAST AS REAL/INTEGER), so a PostgreSQL dialect is an
 * addition in server/platform/db, not a rewrite of the queries.
 */
import { SqliteAdapter, sql, type Expression, type Kysely, type RawBuilder } from 'kysely';

type Operand = Expression<unknown> | number;

/** The larger of two values (SQLite's max(a, b); PostgreSQL's GREATEST). */
export function greatest<T = number>(a: Operand, b: Operand): RawBuilder<T> {
  return sql<T>`(CASE WHEN ${a} >= ${b} THEN ${a} ELSE ${b} END)`;
}

/** The smaller of two values. */
export function least<T = number>(a: Operand, b: Operand): RawBuilder<T> {
  return sql<T>`(CASE WHEN ${a} <= ${b} THEN ${a} ELSE ${b} END)`;
}

/** How many rows of the group satisfy `condition` (0 for none). */
export function countWhere(condition: Expression<unknown>): RawBuilder<number> {
  return sql<number>`SUM(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;
}

/** base^exponent (SQLite's math functions and PostgreSQL both name it power). */
export function power(base: Operand, exponent: Operand): RawBuilder<number> {
  return sql<number>`power(${base}, ${exponent})`;
}

/** A value as a double-precision float (so integer division cannot truncate). */
export function asFloat(value: Operand): RawBuilder<number> {
  return sql<number>`CAST(${value} AS DOUBLE PRECISION)`;
}

/** The largest integer not above the value. */
export function floor(value: Operand): RawBuilder<number> {
  return sql<number>`floor(${value})`;
}

/**
 * The 1-based position of the first `needle` in `text`, 0 when absent (SQLite's instr,
 * PostgreSQL's strpos). The needle is written into the SQL as a literal, so the expression is
 * the same wherever it appears (a GROUP BY repeating it matches its SELECT on PostgreSQL).
 */
export function positionOf<DB>(db: Kysely<DB>, text: Expression<unknown>, needle: string): RawBuilder<number> {
  const literal = sql.lit(needle);
  return db.getExecutor().adapter instanceof SqliteAdapter
    ? sql<number>`instr(${text}, ${literal})`
    : sql<number>`strpos(${text}, ${literal})`;
}

/**
 * A query's rows as one JSON array of arrays, aggregated by the database, for hot reads of
 * many small rows (a user's affinities and engaged posts at their first request): better-sqlite3
 * builds a JS object per row, which cost more than SQLite's own work (0.19 against 0.06 ms for a
 * user's 35 affinity rows); one string parsed with JSON.parse is about half of that. Numbers
 * keep every bit (both databases print doubles in their shortest exact form), integers up to
 * 2^53. The aggregate's spelling is the dialect's: SQLite's json_group_array / json_array,
 * PostgreSQL's json_agg / json_build_array (which its driver hands over already parsed).
 */
import { SqliteAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/** A row of a JSON rows aggregate: the selected columns' values in order. */
export type JsonRow = readonly unknown[];

/**
 * The aggregate of `columns` (column references) over the query's rows, one array per row;
 * read it back with `parseJsonRows`. Use with a queryTemplate (built once per dialect).
 */
export function jsonRows<DB>(db: Kysely<DB>, columns: readonly string[]): RawBuilder<unknown> {
  const values = sql.join(columns.map((column) => sql.ref(column)));
  return db.getExecutor().adapter instanceof SqliteAdapter
    ? sql`json_group_array(json_array(${values}))`
    : sql`json_agg(json_build_array(${values}))`;
}

/**
 * The aggregate of one column as a JSON array of its values (the rows' single column); read it
 * back with `parseJsonRows` too.
 */
export function jsonValues<DB>(db: Kysely<DB>, column: string): RawBuilder<unknown> {
  return db.getExecutor().adapter instanceof SqliteAdapter ? sql`json_group_array(${sql.ref(column)})` : sql`json_agg(${sql.ref(column)})`;
}

/** What `jsonRows` / `jsonValues` returned, as an array (empty for no rows: PostgreSQL's aggregate of none is NULL). */
export function parseJsonRows<T>(value: unknown): T[] {
  if (value === null || value === undefined) return [];
  return (typeof value === 'string' ? JSON.parse(value) : value) as T[];
}

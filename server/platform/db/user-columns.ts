/**
 * One statement that reads a user's rows of several features at once (a user's first request
 * reads their whole profile): each feature hands in scalar subqueries over its own tables,
 * keyed by the user's id, and reads its values back from the one row. Each table is still named
 * only by its owner's SQL (test/architecture/table-ownership.test.ts), and the statement is one
 * trip through the driver instead of one per table: on SQLite each trip through kysely (its
 * connection lock, the driver's chain of async steps, a result object) cost more than the
 * indexed read it carried. `SELECT (…) AS a, (…) AS b` has no FROM: both dialects run it.
 */
import type { AliasedExpression, Kysely } from 'kysely';
import type { Database } from './database.js';
import { queryTemplate } from './precompiled-query.js';

/** A feature's share of a per-user statement: its columns and how it reads them back. */
export interface UserColumns<T> {
  /** Scalar subqueries on `userId` (a queryTemplate's argument), each aliased with a name unique to the feature. */
  readonly columns: (db: Kysely<Database>, userId: string) => readonly AliasedExpression<unknown, string>[];
  /** The feature's values from the row (a subquery over no rows gives null). */
  readonly read: (row: Readonly<Record<string, unknown>>) => T;
}

/** Reads two features' columns for a user in one statement (compiled once per dialect). */
export function userColumnsReader<A, B>(a: UserColumns<A>, b: UserColumns<B>): (db: Kysely<Database>, userId: string) => Promise<[A, B]> {
  const template = queryTemplate((db: Kysely<Database>, args) => {
    const userId = args[0] as string;
    return db.selectNoFrom([...a.columns(db, userId), ...b.columns(db, userId)]);
  });
  return async (db, userId) => {
    const { rows } = await template(db, [userId]);
    const row = rows[0] as Readonly<Record<string, unknown>>;
    return [a.read(row), b.read(row)];
  };
}

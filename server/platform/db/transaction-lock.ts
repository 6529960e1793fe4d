/**
 * One-time work that several processes may start together on one database (instances
 * starting at once): the first to take the lock does it inside its transaction, the others
 * wait for that transaction to end, then find the work done and skip it.
 *
 * - PostgreSQL: a transaction advisory lock (pg_advisory_xact_lock, waiting), keyed by the
 *   name and the current schema, so deployments in other schemas do not exclude each other.
 * - SQLite: a write statement that touches no row takes the database's write lock at once
 *   (waiting up to the busy timeout), so the work's reads see every earlier committer; a
 *   deferred transaction would read first and fail on its first write instead.
 */
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** Waits, inside `trx`, until no other transaction holds the lock `name`; held until `trx` ends. */
export async function lockForTransaction(trx: Kysely<any>, name: string): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`recsvc:${name}`}), hashtext(current_schema()))`.execute(trx);
    return;
  }
  await sql`UPDATE kysely_migration SET name = name WHERE 0 = 1`.execute(trx);
}

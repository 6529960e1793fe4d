/**
 * Bulk loading (demo data, benchmarks): multi-row INSERTs with a pre-built statement per
 * batch size, skipping the query builder. SQLite allows 32,766 bound values per statement.
 */
import { CompiledQuery, sql, type Kysely } from 'kysely';

const MAX_VALUES = 30_000;

/** Inserts `rows` (values in `columns` order) into `table` in as few statements as fit. */
export async function bulkInsert(db: Kysely<any>, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const perBatch = Math.max(1, Math.floor(MAX_VALUES / columns.length));
  const tuple = `(${columns.map(() => '?').join(',')})`;
  const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(',')}) VALUES `;
  let fullSql: string | undefined;
  for (let start = 0; start < rows.length; start += perBatch) {
    const batch = rows.slice(start, start + perBatch);
    const text =
      batch.length === perBatch
        ? (fullSql ??= head + Array(perBatch).fill(tuple).join(','))
        : head + Array(batch.length).fill(tuple).join(',');
    await db.executeQuery(CompiledQuery.raw(text, batch.flat()));
  }
}

/**
 * Runs a bulk load with a large page cache (indexes of a few hundred thousand rows then
 * stay in memory instead of spilling), restoring the previous size afterwards.
 */
export async function withBulkLoadCache<T>(db: Kysely<any>, work: () => Promise<T>): Promise<T> {
  const before = await sql<{ cache_size: number }>`PRAGMA cache_size`.execute(db);
  await sql`PRAGMA cache_size = -262144`.execute(db);
  try {
    return await work();
  } finally {
    await sql.raw(`PRAGMA cache_size = ${Number(before.rows[0]?.cache_size ?? -2000)}`).execute(db);
  }
}

/**
 * Multi-row INSERTs (and upserts) with a pre-built statement per batch size, skipping the
 * query builder: the posts feature's one write path and the bulk loads of demo data and
 * benchmarks. SQLite allows 32,766 bound values per statement.
 */
import { CompiledQuery, sql, type Kysely } from 'kysely';

const MAX_VALUES = 30_000;

/**
 * On a conflict on `target` (a unique key), replace the stored row's other columns with
 * the new values (an upsert). Rows of one call must not share a key: PostgreSQL refuses
 * to update a row twice in one statement.
 */
export interface ReplaceOnConflict {
  target: readonly string[];
}

/** Inserts `rows` (values in `columns` order) into `table` in as few statements as fit. */
export async function bulkInsert(
  db: Kysely<any>,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  replace?: ReplaceOnConflict,
): Promise<void> {
  if (rows.length === 0) return;
  const perBatch = Math.max(1, Math.floor(MAX_VALUES / columns.length));
  const tuple = `(${columns.map(() => '?').join(',')})`;
  const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(',')}) VALUES `;
  const tail = replace ? conflictClause(columns, replace) : '';
  let fullSql: string | undefined;
  for (let start = 0; start < rows.length; start += perBatch) {
    const batch = rows.slice(start, start + perBatch);
    const text =
      batch.length === perBatch
        ? (fullSql ??= head + Array(perBatch).fill(tuple).join(',') + tail)
        : head + Array(batch.length).fill(tuple).join(',') + tail;
    await db.executeQuery(CompiledQuery.raw(text, batch.flat()));
  }
}

/** `ON CONFLICT (…) DO UPDATE SET c = excluded.c, …`: the same text in SQLite and PostgreSQL. */
function conflictClause(columns: readonly string[], replace: ReplaceOnConflict): string {
  const updated = columns.filter((c) => !replace.target.includes(c)).map((c) => `"${c}" = excluded."${c}"`);
  const target = replace.target.map((c) => `"${c}"`).join(',');
  return updated.length === 0 ? ` ON CONFLICT (${target}) DO NOTHING` : ` ON CONFLICT (${target}) DO UPDATE SET ${updated.join(', ')}`;
}

/**
 * Runs a bulk load with a large page cache (up to 1 GiB, taken only as pages are touched:
 * the indexes of millions of rows then stay in memory instead of spilling), restoring the
 * previous size afterwards.
 */
export async function withBulkLoadCache<T>(db: Kysely<any>, work: () => Promise<T>): Promise<T> {
  const before = await sql<{ cache_size: number }>`PRAGMA cache_size`.execute(db);
  await sql`PRAGMA cache_size = -1048576`.execute(db);
  try {
    return await work();
  } finally {
    await sql.raw(`PRAGMA cache_size = ${Number(before.rows[0]?.cache_size ?? -2000)}`).execute(db);
  }
}

/**
 * A large read of the newest rows, in chunks: an agent's read of 100,000 interactions in one
 * statement held the event loop for as long as SQLite took to step through them (requests
 * queued behind it), so it reads CHUNK_ROWS at a time, newest first by id, and gives the event
 * loop a turn between chunks. The rows come out as one statement would give them.
 */

/** Rows per statement. */
export const CHUNK_ROWS = 5_000;

/**
 * Up to `limit` rows, newest first: `read(beforeId, n)` reads the `n` newest rows with an id
 * below `beforeId` (all rows when undefined), newest first; `idOf` is a row's id.
 */
export async function readNewestInChunks<Row>(
  limit: number,
  read: (beforeId: string | undefined, n: number) => Promise<Row[]>,
  idOf: (row: Row) => string,
  chunk = CHUNK_ROWS,
): Promise<Row[]> {
  const out: Row[] = [];
  let before: string | undefined;
  while (out.length < limit) {
    const n = Math.min(chunk, limit - out.length);
    const rows = await read(before, n);
    for (const row of rows) out.push(row);
    if (rows.length < n) break;
    before = idOf(rows[rows.length - 1] as Row);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}

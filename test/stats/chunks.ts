/**
 * Runs a long simulation as chunks with a yield to the event loop between them: a test that
 * blocks its worker for minutes makes vitest's worker RPC time out ("Timeout calling
 * onTaskUpdate") and the run fail though every assertion passed.
 */
export async function inChunks<T>(chunks: number, run: (chunk: number) => T): Promise<T[]> {
  const results: T[] = [];
  for (let chunk = 0; chunk < chunks; chunk++) {
    results.push(run(chunk));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return results;
}

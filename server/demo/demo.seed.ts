/** Demo data for `serve --demo` (filled in by the posts feature). */
import type { DatabaseHandle } from '../db/connection.js';

/** Seeds the deterministic demo data set when the database holds no posts yet. */
export async function seedDemoIfEmpty(database: DatabaseHandle, log: (message: string) => void): Promise<void> {
  void database;
  log('demo data: nothing to seed yet');
}

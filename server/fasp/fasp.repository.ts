/** The `fasp_servers` rows. */
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../platform/db/database.js';
import type { FaspServersTable } from './fasp.tables.js';

export type FaspServerRow = Selectable<FaspServersTable>;

/** Stores a new registration. */
export async function insertFaspServer(db: Kysely<Database>, row: FaspServerRow): Promise<void> {
  await db.insertInto('fasp_servers').values(row).execute();
}

/** The registration whose server id is `id`. */
export async function findFaspServer(db: Kysely<Database>, id: string): Promise<FaspServerRow | undefined> {
  return db.selectFrom('fasp_servers').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every registration, oldest first. */
export async function listFaspServers(db: Kysely<Database>): Promise<FaspServerRow[]> {
  return db.selectFrom('fasp_servers').selectAll().orderBy('created_at_ms').orderBy('id').execute();
}

/** Replaces the enabled capabilities of a registration. */
export async function updateFaspCapabilities(db: Kysely<Database>, id: string, capabilities: string): Promise<void> {
  await db.updateTable('fasp_servers').set({ capabilities }).where('id', '=', id).execute();
}

/** Removes a registration; whether there was one. */
export async function deleteFaspServer(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('fasp_servers').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

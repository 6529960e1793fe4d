/**
 * Applies the explicit, frozen migration list at start and refuses databases
 * written by a newer recsvc (an applied migration this build does not know).
 */
import { Migrator, type Kysely, type MigrationProvider } from 'kysely';
import { MIGRATIONS } from './migrations/index.js';
import { InputError } from '../../src/errors.js';

export class MigrationError extends InputError {}

const provider: MigrationProvider = { getMigrations: async () => ({ ...MIGRATIONS }) };

/** Applies pending migrations; returns the names applied now. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  await refuseNewerDatabase(db);
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    // A migration may throw anything; a non-Error is shown as String() shows it.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    throw new MigrationError(`database migration failed: ${(error as Error).message ?? String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

async function refuseNewerDatabase(db: Kysely<any>): Promise<void> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === 'kysely_migration')) return;
  const applied = await (db as Kysely<{ kysely_migration: { name: string } }>).selectFrom('kysely_migration').select('name').execute();
  const unknown = applied.map((row) => row.name).filter((name) => !(name in MIGRATIONS));
  if (unknown.length > 0) {
    throw new MigrationError(
      `the database was written by a newer recsvc (unknown migrations: ${unknown.join(', ')}); upgrade recsvc or use another --db`,
    );
  }
}

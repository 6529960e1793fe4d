/**
 * Keeps the database healthy: purges tokens that expired or were revoked more
 * than 30 days ago, then checkpoints and optimises the storage.
 */
import type { Kysely } from 'kysely';
import { purgeTokensDeadBefore } from '../auth/token.service.js';
import type { Database } from '../db/database.js';
import { runStorageMaintenance } from '../db/maintenance.js';
import type { Agent } from './agent.types.js';

const RETENTION_MS = 30 * 24 * 3600 * 1000;

/** The database maintenance agent. */
export function databaseMaintenanceAgent(db: Kysely<Database>, intervalSeconds: number): Agent {
  return {
    name: 'database_maintenance',
    description: 'purges tokens dead for 30 days, checkpoints the WAL and refreshes planner statistics',
    intervalSeconds,
    // Purges the shared tokens table (and, on SQLite, checkpoints the one file).
    scope: 'cluster',
    async run({ now }) {
      const purged = await purgeTokensDeadBefore(db, new Date(now() - RETENTION_MS));
      await runStorageMaintenance(db);
      return { summary: `purged ${purged} dead tokens; checkpointed and optimised the database`, details: { tokens_purged: purged } };
    },
  };
}

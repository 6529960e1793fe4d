/**
 * The agents without a listening server: the same app `serve` builds (so every agent a
 * feature registers is here, with the same services and settings from the environment),
 * never listening, its agents never scheduled. Closing it closes the app and the database.
 */
import { createPrivacyPolicy } from '../../server/privacy/privacy.feature.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.js';
import { loadServerConfig } from '../../server/config.js';
import { openDatabase } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import type { AgentRunner } from '../../server/platform/agents/agent-runner.js';

export interface AgentHost {
  runner: AgentRunner;
  close(): Promise<void>;
}

/** Opens and migrates the database at `--db` (or RECSVC_DB) and builds the agents on it. */
export async function openAgentHost(dbPath: string | undefined): Promise<AgentHost> {
  const config = loadServerConfig(dbPath === undefined ? {} : { db: dbPath });
  // An unreadable database or a refused migration is an InputError: exit 2 through the funnel.
  const database = await openDatabase(config.dbPath, { mmapBytes: config.sqliteMmapBytes, poolSize: config.databasePoolSize });
  let app: FastifyInstance;
  try {
    await migrateToLatest(database.db);
    app = await buildApp({
      database,
      privacy: await createPrivacyPolicy(database.db, { ...config.privacy, dbPath: config.dbPath }),
      rateLimit: null,
      proxy: false,
      caches: config.caches,
      socialOptions: config.social,
      oauthSettings: config.oauth,
      agentIntervalSeconds: config.agentIntervalSeconds,
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  return {
    runner: app.agentRunner,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

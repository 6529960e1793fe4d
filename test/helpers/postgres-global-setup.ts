/**
 * Global setup of vitest.postgres.config.ts: the prefix of this run's schemas
 * (test/helpers/test-database.ts), all dropped when the run ends.
 */
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { TEST_DATABASE_URL } from '../postgres/postgres-test-database.js';

export default function setup(project: TestProject): () => Promise<void> {
  const prefix = `recsvc_http_${randomBytes(4).toString('hex')}_`;
  project.provide('pgSchemaPrefix', prefix);
  return async () => {
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    try {
      await admin.connect();
      const { rows } = await admin.query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)`, [
        prefix,
      ]);
      for (const { name } of rows) await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    } catch {
      // No server: nothing was created.
    } finally {
      await admin.end().catch(() => undefined);
    }
  };
}

/**
 * `recsvc eval --database postgres://…`: an operator of a PostgreSQL deployment evaluates on
 * the service's own database as one on SQLite does. The same data stored in an SQLite file and
 * in a PostgreSQL schema gives the same evaluation, whole and as the ranking_fit agent reads it
 * (`--max-interactions`); the URL's password never appears in what the command prints.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { generateSynthetic, generatorOptions } from '../../src/evaluation/generate.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { storeSynthetic } from '../helpers/eval-store.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();
const FAST = ['--samples', '50', '--baselines', 'popularity,hot,item_knn', '--json'];

interface EvalJson {
  source: string;
  data: { evaluated_users: number };
}

describe.skipIf(unavailable !== undefined)(suiteTitle('recsvc eval --database <postgres URL>', unavailable), () => {
  const data = generateSynthetic(generatorOptions('feed', { users: 200, authors: 40, posts: 300, seed: 3 }));
  const path = join(tempDir('recsvc-eval-pg-'), 'recsvc.db');
  let schema: TestSchema;

  beforeAll(async () => {
    schema = await createTestSchema();
    for (const target of [path, schema.url]) {
      const database = await openDatabase(target);
      try {
        await migrateToLatest(database.db);
        await storeSynthetic(database.db, data);
      } finally {
        await database.close();
      }
    }
  });

  afterAll(async () => {
    await schema?.drop();
  });

  it('evaluates the same as on SQLite, whole and bounded as the ranking_fit agent reads', async () => {
    for (const bound of [[], ['--max-interactions', '1500']]) {
      const fromPostgres = await runCli(['eval', '--database', schema.url, ...bound, ...FAST]);
      const fromSqlite = await runCli(['eval', '--database', path, ...bound, ...FAST]);
      expect(fromPostgres.code, fromPostgres.stderr).toBe(0);
      expect(fromSqlite.code, fromSqlite.stderr).toBe(0);
      const pg = JSON.parse(fromPostgres.stdout) as EvalJson;
      const sqlite = JSON.parse(fromSqlite.stdout) as EvalJson;
      expect(pg.data.evaluated_users).toBeGreaterThan(0);
      expect({ ...pg, source: '' }).toEqual({ ...sqlite, source: '' });
    }
  });

  it('never prints the password of the URL', async () => {
    const url = new URL(schema.url);
    url.password = 'sekrit-password';
    const result = await runCli(['eval', '--database', url.toString(), ...FAST]);
    // The test server trusts local connections (any password is accepted): the report names the URL, masked.
    expect(result.code, result.stderr).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toContain('sekrit-password');
    expect((JSON.parse(result.stdout) as EvalJson).source).toContain(':***@');
  });
});

/**
 * The analysis method from creation to every read: the creation body and its default, the
 * experiments table (migration 0018 and the rows before it), `?method=` on the analysis
 * endpoint, and the commands (`create --method`, `status`/`analyze --method`, offline
 * `analyze --file` of the export) as child processes against a real `recsvc serve`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../../../server/platform/db/connection.js';
import { migrateToLatest } from '../../../../server/platform/db/migrate.js';
import { MIGRATIONS } from '../../../../server/platform/db/migrations/index.js';
import { ExperimentService } from '../../../../server/experiments/experiment.service.js';
import { REPO_ROOT, runCli } from '../../../helpers/cli.js';
import { startServerProcess, type ServerProcess } from '../../../helpers/server-process.js';
import { createTestApp, type TestApp } from '../../../helpers/test-app.js';
import { seedExperiment } from '../../../commands/support/seed-experiment.js';

const BASE = '/api/v1/analytics/experiments';
const FIXTURE = `${REPO_ROOT}test/fixtures/cli/experiment.json`;
const weights = { author_preference: 0.35, content_engagement: 0.25, recency: 0.25, semantic_similarity: 0.15 };
const body = {
  name: 'method',
  minimum_sample_size: 100,
  variants: [
    { name: 'control', traffic_allocation: 50, algorithm_config: { weights }, is_control: true },
    { name: 'treatment', traffic_allocation: 50, algorithm_config: { weights }, is_control: false },
  ],
};

describe('the analysis method over HTTP', () => {
  let t: TestApp;
  let admin: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.adminHeaders();
  });
  afterAll(async () => t.close());

  const create = async (payload: object) => t.app.inject({ method: 'POST', url: BASE, headers: admin, payload });
  const analysis = async (id: number, query = '') => t.app.inject({ method: 'GET', url: `${BASE}/${id}/analysis${query}`, headers: admin });

  it('records sequential by default and the method the body names, and reads with it', async () => {
    const byDefault = (await create(body)).json().data.id;
    const fixed = (await create({ ...body, analysis_method: 'fixed' })).json().data.id;
    expect((await analysis(byDefault)).json().data).toMatchObject({
      analysis_method: 'sequential',
      sequential_tuning: { target_sample_size: 200 },
    });
    expect((await analysis(fixed)).json().data).toMatchObject({ analysis_method: 'fixed', sequential_tuning: null });
    const stored = await t.database.db.selectFrom('experiments').select(['id', 'analysis_method']).orderBy('id').execute();
    expect(stored.map((row) => row.analysis_method)).toEqual(['sequential', 'fixed']);
  });

  it('lets ?method= override the recorded method for one read without changing it', async () => {
    const id = (await create(body)).json().data.id;
    expect((await analysis(id, '?method=fixed')).json().data.analysis_method).toBe('fixed');
    expect((await analysis(id, '?method=sequential&metric=bounce_rate')).json().data).toMatchObject({
      analysis_method: 'sequential',
      primary_metric: 'bounce_rate',
    });
    expect((await analysis(id)).json().data.analysis_method).toBe('sequential');
  });

  it('refuses an unknown method in the body or the query with a 400 naming the field, storing nothing', async () => {
    const before = await t.database.db.selectFrom('experiments').select('id').execute();
    const badBody = await create({ ...body, analysis_method: 'bayesian' });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.json().field).toMatch(/analysis_method/);
    expect(await t.database.db.selectFrom('experiments').select('id').execute()).toEqual(before);
    const id = (await create(body)).json().data.id;
    const badQuery = await analysis(id, '?method=bayesian');
    expect(badQuery.statusCode).toBe(400);
    expect(badQuery.json().field).toBe('method');
  });
});

describe('migration 0018', () => {
  it('gives experiments created before it the fixed method they were planned with, and can be rolled back', async () => {
    const { db } = openSqlite(':memory:');
    const migrator = new Migrator({ db: db as Kysely<any>, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } });
    const before = Object.keys(MIGRATIONS)
      .sort()
      .filter((name) => name < '0018-experiment-analysis-method')
      .at(-1) as string;
    expect((await migrator.migrateTo(before)).error).toBeUndefined();
    const at = new Date(0).toISOString();
    await (db as Kysely<any>)
      .insertInto('experiments')
      .values({
        name: 'old',
        description: '',
        status: 'ACTIVE',
        traffic_percentage: 100,
        minimum_sample_size: 1000,
        confidence_level: 0.95,
        primary_metric: 'click_through_rate',
        created_at: at,
        updated_at: at,
      })
      .execute();
    await migrateToLatest(db);
    const service = new ExperimentService({ db, runtime: { invalidate: () => {} } as never, now: Date.now });
    const [old] = await service.list();
    expect(old).toMatchObject({ name: 'old', analysis_method: 'fixed' });
    expect((await migrator.migrateTo(before)).error).toBeUndefined();
    const columns = await db.introspection.getTables();
    expect(columns.find((table) => table.name === 'experiments')?.columns.map((c) => c.name)).not.toContain('analysis_method');
    await db.destroy();
  });
});

describe('the commands', () => {
  let server: ServerProcess;
  let dir: string;
  const cli = (args: string[]) => runCli(args, { env: server.env });
  const json = async (args: string[]) => {
    const result = await cli([...args, '--json']);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };
  let sequentialId: number;
  let fixedId: number;

  beforeAll(async () => {
    server = await startServerProcess();
    dir = mkdtempSync(join(tmpdir(), 'recsvc-method-'));
    const created = await cli(['experiment', 'create', '--file', FIXTURE]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/analysis method: sequential \(always-valid/);
    sequentialId = Number(created.stdout.trim());
    const fixed = await cli(['experiment', 'create', '--file', FIXTURE, '--method', 'fixed']);
    expect(fixed.stderr).toMatch(/analysis method: fixed/);
    fixedId = Number(fixed.stdout.trim());
    const variants = [
      { name: 'control', traffic_allocation: 50 },
      { name: 'recency', traffic_allocation: 50 },
    ];
    for (const id of [sequentialId, fixedId]) {
      expect((await cli(['experiment', 'start', String(id)])).code).toBe(0);
      await seedExperiment(server, { experimentId: id, variants, users: 400, lift: { recency: 0.3 } });
    }
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('analyze reads with the recorded method and --method overrides it, online and offline alike', async () => {
    const sequential = await json(['experiment', 'analyze', String(sequentialId)]);
    const fixed = await json(['experiment', 'analyze', String(fixedId)]);
    expect(sequential.analysis_method).toBe('sequential');
    expect(fixed.analysis_method).toBe('fixed');
    const overridden = await json(['experiment', 'analyze', String(sequentialId), '--method', 'fixed']);
    expect(overridden.analysis_method).toBe('fixed');
    // Same data, other method: the same differences, a wider always-valid interval.
    const ctr = (result: { comparisons: { metric: string; difference: number; ci_low: number; ci_high: number }[] }) =>
      result.comparisons.find((c) => c.metric === 'click_through_rate') as { difference: number; ci_low: number; ci_high: number };
    expect(ctr(overridden).difference).toBe(ctr(sequential).difference);
    expect(ctr(sequential).ci_high - ctr(sequential).ci_low).toBeGreaterThan(ctr(overridden).ci_high - ctr(overridden).ci_low);

    const file = join(dir, `exp-${sequentialId}.jsonl`);
    expect((await cli(['experiment', 'export', String(sequentialId), '-o', file])).code).toBe(0);
    expect(await json(['experiment', 'analyze', '--file', file])).toEqual(sequential);
    expect(await json(['experiment', 'analyze', '--file', file, '--method', 'fixed'])).toEqual(overridden);
  });

  it('analyze and status say which method they used', async () => {
    const analyze = await cli(['experiment', 'analyze', String(sequentialId)]);
    expect(analyze.code, analyze.stderr).toBe(0);
    expect(analyze.stdout).toMatch(/^Method: sequential \(always-valid p-values and confidence sequences.*tightest at 200 users\)$/m);
    const final = await cli(['experiment', 'analyze', String(sequentialId), '--method', 'fixed']);
    expect(final.stdout).toMatch(/^Method: fixed \(fixed horizon/m);
    // The interval column names what the interval is: a confidence sequence or a fixed-horizon interval.
    expect(analyze.stdout).toContain('% CS (diff)');
    expect(final.stdout).toContain('% CI (diff)');

    const status = await cli(['experiment', 'status', String(sequentialId)]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Method: sequential /m);
    expect(status.stdout).toMatch(
      /^click_through_rate recency vs control: [+-]?\d+\.\d+%, difference \[.*\], p = .*: (significant|not significant)$/m,
    );
    const statusJson = await json(['experiment', 'status', String(fixedId)]);
    expect(statusJson).toMatchObject({ id: fixedId, users_assigned: 400, analysis_method: 'fixed' });
    expect(statusJson.statistical_significance.recency_vs_control.metric).toBe('click_through_rate');
    expect((await json(['experiment', 'status', String(fixedId), '--method', 'sequential'])).analysis_method).toBe('sequential');
  });

  it('refuses an unknown --method as a usage error (exit 2)', async () => {
    const result = await cli(['experiment', 'analyze', String(sequentialId), '--method', 'bayesian']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/fixed, sequential/);
  });
});

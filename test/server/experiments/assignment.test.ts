import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assignVariant, isInTraffic } from '../../../src/experiments/assignment.js';
import { DEFAULT_ALGORITHM_CONFIG, SHIPPED_RANKING_OPTIONS } from '../../../src/ranking/ranking.types.js';
import { ExperimentRuntime } from '../../../server/experiments/experiment-runtime.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { AUTHOR_ONLY, RECENCY_ONLY, experimentBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
const apps: TestApp[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function app(dbPath?: string): Promise<TestApp> {
  const t = await createTestApp(dbPath ? { dbPath } : {});
  apps.push(t);
  return t;
}

async function started(t: TestApp, body = experimentBody()): Promise<number> {
  const admin = await t.adminHeaders();
  const id = (await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: body })).json().data.id as number;
  expect((await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin })).statusCode).toBe(200);
  return id;
}

async function assignmentRows(t: TestApp) {
  return t.database.db.selectFrom('experiment_assignments').selectAll().orderBy('experiment_id').orderBy('user_id').execute();
}

const users = (n: number, prefix = 'user') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('the experiment ranking policy', () => {
  it('serves the default ranking when no experiment is ACTIVE', async () => {
    const t = await app();
    const admin = await t.adminHeaders();
    await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: experimentBody() });
    const choice = await t.app.experiments.rankingPolicy.choose('alice');
    expect(choice).toEqual({ config: DEFAULT_ALGORITHM_CONFIG, options: SHIPPED_RANKING_OPTIONS, algorithm: 'default' });
    expect(await assignmentRows(t)).toEqual([]);
  });

  it('ranks an enrolled user with their variant (the spec bucketing) and records the assignment once', async () => {
    const t = await app();
    const id = await started(t);
    const variants = experimentBody().variants;
    for (const user of users(200)) {
      const expected = assignVariant(user, id, variants).variant?.name as string;
      const choice = await t.app.experiments.rankingPolicy.choose(user);
      expect(choice.enrolment).toEqual({ experimentId: id, variant: expected });
      expect(choice.config.weights).toEqual(expected === 'control' ? AUTHOR_ONLY : RECENCY_ONLY);
      expect(choice.algorithm).toBe(`exp${id}:${expected}`);
      await t.app.experiments.rankingPolicy.choose(user);
    }
    const rows = await assignmentRows(t);
    expect(rows).toHaveLength(200);
    const split = new Set(rows.map((r) => r.variant));
    expect(split).toEqual(new Set(['control', 'treatment']));
  });

  it('leaves users outside traffic_percentage unenrolled, with the default ranking and no row', async () => {
    const t = await app();
    const id = await started(t, experimentBody({ traffic_percentage: 30 }));
    let inside = 0;
    for (const user of users(300)) {
      const choice = await t.app.experiments.rankingPolicy.choose(user);
      if (isInTraffic(user, id, 30)) {
        inside++;
        expect(choice.enrolment?.experimentId).toBe(id);
      } else {
        expect(choice).toEqual({ config: DEFAULT_ALGORITHM_CONFIG, options: SHIPPED_RANKING_OPTIONS, algorithm: 'default' });
      }
    }
    expect(inside).toBeGreaterThan(50);
    expect(inside).toBeLessThan(130);
    expect(await assignmentRows(t)).toHaveLength(inside);
  });

  it('keeps assignments across a restart on the same database file, even if allocations are edited later', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recsvc-assign-'));
    dirs.push(dir);
    const dbPath = join(dir, 'recsvc.db');
    const first = await app(dbPath);
    const id = await started(first);
    const before = new Map<string, string>();
    for (const user of users(150)) before.set(user, (await first.app.experiments.rankingPolicy.choose(user)).enrolment?.variant as string);
    await first.close();
    apps.splice(apps.indexOf(first), 1);

    const second = await app(dbPath);
    // Edit the allocations behind the service's back: recorded assignments must not move.
    await second.database.db.updateTable('experiment_variants').set({ traffic_allocation: 1 }).where('name', '=', 'control').execute();
    await second.database.db.updateTable('experiment_variants').set({ traffic_allocation: 99 }).where('name', '=', 'treatment').execute();
    for (const [user, variant] of before) {
      expect((await second.app.experiments.rankingPolicy.choose(user)).enrolment).toEqual({ experimentId: id, variant });
    }
    expect(await assignmentRows(second)).toHaveLength(150);
  });

  it('records exactly one row per user under concurrent first requests from several processes', async () => {
    const t = await app();
    const id = await started(t);
    // Three independent runtimes over one database stand for three processes (no shared cache).
    const runtimes = [new ExperimentRuntime(t.database.db), new ExperimentRuntime(t.database.db), new ExperimentRuntime(t.database.db)];
    const policy = t.app.experiments.rankingPolicy;
    const who = users(60, 'racer');
    const choices = await Promise.all(
      who.flatMap((user) => [
        Promise.resolve(policy.choose(user)),
        Promise.resolve(policy.choose(user)),
        ...runtimes.map((r) => r.choose(user)),
        ...runtimes.map((r) => r.choose(user)),
      ]),
    );
    const rows = await assignmentRows(t);
    expect(rows).toHaveLength(60);
    const recorded = new Map(rows.map((r) => [r.user_id, r.variant]));
    who.forEach((user, i) => {
      for (const choice of choices.slice(i * 8, i * 8 + 8))
        expect(choice.enrolment).toEqual({ experimentId: id, variant: recorded.get(user) });
    });
  });

  it("serves PAUSED and COMPLETED experiments' users the default ranking and keeps them counted", async () => {
    const t = await app();
    const admin = await t.adminHeaders();
    const id = await started(t);
    await t.app.experiments.rankingPolicy.choose('u1');
    await t.app.inject({ method: 'POST', url: `${BASE}/${id}/pause`, headers: admin });
    expect((await t.app.experiments.rankingPolicy.choose('u1')).algorithm).toBe('default');
    expect((await t.app.experiments.rankingPolicy.choose('u2')).algorithm).toBe('default');
    await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin });
    expect((await t.app.experiments.rankingPolicy.choose('u1')).enrolment?.experimentId).toBe(id);
    await t.app.inject({ method: 'POST', url: `${BASE}/${id}/stop`, headers: admin });
    expect((await t.app.experiments.rankingPolicy.choose('u1')).algorithm).toBe('default');
    const status = (await t.app.inject({ method: 'GET', url: `${BASE}/${id}/status`, headers: admin })).json().data;
    expect(status.users_assigned).toBe(1);
  });

  it("serves a blocked variant's users the control ranking while they stay in their variant", async () => {
    const t = await app();
    const id = await started(t);
    const treated = users(40).filter((u) => assignVariant(u, id, experimentBody().variants).variant?.name === 'treatment');
    const user = treated[0] as string;
    expect((await t.app.experiments.rankingPolicy.choose(user)).config.weights).toEqual(RECENCY_ONLY);
    await t.database.db
      .updateTable('experiment_variants')
      .set({ blocked: 1, blocked_reason: 'test' })
      .where('name', '=', 'treatment')
      .execute();
    t.app.experiments.runtime.invalidate();
    const choice = await t.app.experiments.rankingPolicy.choose(user);
    expect(choice.config.weights).toEqual(AUTHOR_ONLY);
    expect(choice.enrolment).toEqual({ experimentId: id, variant: 'treatment' });
    expect(choice.algorithm).toBe(`exp${id}:treatment:blocked`);
  });
});

describe('several ACTIVE experiments', () => {
  it('enrols a user in the oldest started experiment that admits them, and in no other while it is open', async () => {
    const t = await app();
    const admin = await t.adminHeaders();
    const older = await started(t, experimentBody({ name: 'older', traffic_percentage: 50 }));
    const newer = await started(t, experimentBody({ name: 'newer', traffic_percentage: 100 }));
    const who = users(200);
    for (const user of who) {
      const choice = await t.app.experiments.rankingPolicy.choose(user);
      expect(choice.enrolment?.experimentId).toBe(isInTraffic(user, older, 50) ? older : newer);
    }
    const rows = await assignmentRows(t);
    expect(rows).toHaveLength(200);
    expect(rows.filter((r) => r.experiment_id === older).every((r) => isInTraffic(r.user_id, older, 50))).toBe(true);

    // While the older one is paused its users get the default ranking, not the newer experiment.
    const olderUser = who.find((u) => isInTraffic(u, older, 50)) as string;
    await t.app.inject({ method: 'POST', url: `${BASE}/${older}/pause`, headers: admin });
    expect((await t.app.experiments.rankingPolicy.choose(olderUser)).algorithm).toBe('default');
    expect(await assignmentRows(t)).toHaveLength(200);

    // Once it completes they are free, and the newer experiment enrols them.
    await t.app.inject({ method: 'POST', url: `${BASE}/${older}/stop`, headers: admin });
    expect((await t.app.experiments.rankingPolicy.choose(olderUser)).enrolment?.experimentId).toBe(newer);
    expect(await assignmentRows(t)).toHaveLength(201);
  });

  it('orders by first start, not by id: a later-created experiment started first wins', async () => {
    const t = await app();
    const admin = await t.adminHeaders();
    const createdFirst = (await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: experimentBody({ name: 'a' }) })).json()
      .data.id;
    const startedFirst = await started(t, experimentBody({ name: 'b' }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await t.app.inject({ method: 'POST', url: `${BASE}/${createdFirst}/start`, headers: admin });
    expect((await t.app.experiments.rankingPolicy.choose('zed')).enrolment?.experimentId).toBe(startedFirst);
  });
});

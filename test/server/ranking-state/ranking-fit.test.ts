/**
 * The default ranking fitted to the community on a real database (server/ranking-state/
 * ranking-fit.agent.ts): a catalogue's history moves the default to the collaborative weight,
 * the fit is stored with its evidence and applied; the next run waits for new data; every
 * instance applies the stored fit; the operator's RECSVC_RANKING_FIT turns it off or pins a
 * point; a reverted fit gives way to the one before.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import type { AgentRunContext } from '../../../server/platform/agents/agent-runner.js';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import { newestInteractions } from '../../../server/interactions/co-engagement.repository.js';
import { candidatePosts, writeStatuses } from '../../../server/posts/post.service.js';
import {
  parseRankingFitMode,
  rankingDefaultAgent,
  rankingFitAgent,
  type RankingFitMode,
} from '../../../server/ranking-state/ranking-fit.agent.js';
import { registerRankingFit, runFreshly, startFitTrigger } from '../../../server/ranking-state/ranking-fit.feature.js';
import type { AgentRunOutcome } from '../../../server/platform/agents/agent.types.js';
import { runFit } from '../../../server/ranking-state/ranking-fit.job.js';
import { insertFit, latestFits, listFits, loadFitData } from '../../../server/ranking-state/ranking-fit.repository.js';
import { loadRankingState, type RankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { buildDataset, cutoffFor } from '../../../src/evaluation/dataset.js';
import { generateSynthetic, generatorOptions } from '../../../src/evaluation/generate.js';
import { createInteractionsParser, createPostsParser, toJsonLines } from '../../../src/evaluation/import-format.js';
import {
  CATALOGUE_RANKING_DEFAULT,
  completeRankingDefault,
  SHIPPED_RANKING_DEFAULT,
  type RankingDefault,
} from '../../../src/ranking/ranking-default.js';
import { PACE_MIN_SAMPLES } from '../../../src/ranking/engagement-pace.js';
import type { StatusInput } from '../../../src/schemas/post.schema.js';
import { runCli } from '../../helpers/cli.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

let opened: TestDatabase;
let database: DatabaseHandle;
let state: RankingState;

const context = (): AgentRunContext => ({ signal: new AbortController().signal, now: () => Date.now() });
const auto: RankingFitMode = { kind: 'auto' };

beforeEach(async () => {
  opened = await openTestDatabase();
  database = opened.database;
  state = await loadRankingState((limits) => candidatePosts(database.db, limits));
});
afterEach(async () => {
  await opened.close();
});

/** A synthetic catalogue's posts and interactions as rows (interaction ids in time order, as the service makes them). */
async function storeCatalogue(beforeMs = Infinity): Promise<number> {
  const rows = (await storeCataloguePosts()).filter((row) => row.created_at_ms < beforeMs);
  await insertInteractions(rows);
  return rows.length;
}

interface InteractionRow {
  id: string;
  user_id: string;
  post_id: string;
  action_type: string;
  context_json: null;
  created_at: string;
  created_at_ms: number;
}

/** The catalogue's posts, stored; its interactions as rows, not yet stored. */
async function storeCataloguePosts(): Promise<InteractionRow[]> {
  const data = generateSynthetic(generatorOptions('catalogue', { seed: 5, users: 1000 }));
  await writeStatuses(database.db, data.statuses as unknown as StatusInput[], Date.now(), { keepOriginals: false });
  return data.interactions.map((i, n) => {
    const atMs = Date.parse(i.created_at);
    return {
      id: ((BigInt(atMs) << 16n) | BigInt(n & 0xffff)).toString().padStart(18, '0'),
      user_id: i.user_id,
      post_id: i.post_id,
      action_type: i.action,
      context_json: null,
      created_at: i.created_at,
      created_at_ms: atMs,
    };
  });
}

async function insertInteractions(rows: readonly InteractionRow[]): Promise<void> {
  for (let at = 0; at < rows.length; at += 500)
    await database.db
      .insertInto('interactions')
      .values(rows.slice(at, at + 500))
      .execute();
}

describe('RECSVC_RANKING_FIT', () => {
  it('is auto unless off or a point', () => {
    expect(parseRankingFitMode(undefined)).toEqual({ kind: 'auto' });
    expect(parseRankingFitMode(' auto ')).toEqual({ kind: 'auto' });
    expect(parseRankingFitMode('off')).toEqual({ kind: 'off' });
    expect(parseRankingFitMode('{"collaborative":0.3,"recency_half_life_hours":24}')).toEqual({
      kind: 'pinned',
      point: {
        collaborative: 0.3,
        recency_half_life_hours: 24,
        cold_start_recency: 0.5,
        content_engagement: 0.35,
        per_author_cap: 3,
        engagement_half_life: 'pace',
      },
    });
    expect(parseRankingFitMode('{"collaborative":0.3,"recency_half_life_hours":24,"cold_start_recency":0}')).toEqual({
      kind: 'pinned',
      point: {
        collaborative: 0.3,
        recency_half_life_hours: 24,
        cold_start_recency: 0,
        content_engagement: 0.35,
        per_author_cap: 3,
        engagement_half_life: 'pace',
      },
    });
    expect(parseRankingFitMode('{"collaborative":3,"recency_half_life_hours":8,"content_engagement":0.1,"per_author_cap":20}')).toEqual({
      kind: 'pinned',
      point: {
        collaborative: 3,
        recency_half_life_hours: 8,
        cold_start_recency: 0.5,
        content_engagement: 0.1,
        per_author_cap: 20,
        engagement_half_life: 'pace',
      },
    });
    // The "hot" cold start pinned; any other word is refused.
    expect(parseRankingFitMode('{"collaborative":0,"recency_half_life_hours":8,"cold_start_recency":"hot"}')).toMatchObject({
      kind: 'pinned',
      point: { cold_start_recency: 'hot' },
    });
    expect(() => parseRankingFitMode('{"collaborative":0,"recency_half_life_hours":8,"cold_start_recency":"warm"}')).toThrow(
      /^RECSVC_RANKING_FIT: expected auto, off or/,
    );
    // The engagement's half-life pinned: all-time counts (a catalogue's), or a number of hours.
    expect(parseRankingFitMode('{"collaborative":1,"recency_half_life_hours":8,"engagement_half_life":"all-time"}')).toMatchObject({
      kind: 'pinned',
      point: { engagement_half_life: 'all-time' },
    });
    expect(parseRankingFitMode('{"collaborative":0,"recency_half_life_hours":8,"engagement_half_life":6}')).toMatchObject({
      kind: 'pinned',
      point: { engagement_half_life: 6 },
    });
    expect(() => parseRankingFitMode('{"collaborative":0,"recency_half_life_hours":8,"engagement_half_life":"fast"}')).toThrow(
      /^RECSVC_RANKING_FIT: expected auto, off or/,
    );
    expect(() => parseRankingFitMode('{"collaborative":1,"recency_half_life_hours":8,"per_author_cap":0}')).toThrow(
      /^RECSVC_RANKING_FIT: expected auto, off or/,
    );
    expect(() => parseRankingFitMode('{"collaborative":0.3,"recency_half_life_hours":24,"cold_start_recency":2}')).toThrow(
      /^RECSVC_RANKING_FIT: expected auto, off or/,
    );
    expect(() => parseRankingFitMode('{"collaborative":-1,"recency_half_life_hours":24}')).toThrow(
      /^RECSVC_RANKING_FIT: expected auto, off or/,
    );
    expect(() => parseRankingFitMode('on')).toThrow(/got "on"/);
  });
});

describe('ranking_fit', () => {
  it('keeps the shipped default on an empty service, and says why', async () => {
    const report = await rankingFitAgent({ db: database.db, state }, { mode: auto, intervalSeconds: 60 }).run(context());
    expect(report!.summary).toMatch(
      /^kept collaborative 0, recency half-life 8 h, cold start recency 0\.5: not enough data, 0 interactions/,
    );
    expect(state.rankingDefault).toEqual(SHIPPED_RANKING_DEFAULT);
    expect((await listFits(database.db)).map((f) => f.status)).toEqual(['insufficient']);
  });

  it('moves a catalogue to the collaborative weight, stores the evidence, and waits for new data', async () => {
    const count = await storeCatalogue();
    const logged: string[] = [];
    const agent = rankingFitAgent(
      { db: database.db, state },
      // One step, on this thread (from sources there is no built worker; the worker is tested below).
      { mode: auto, intervalSeconds: 60, log: (line) => logged.push(line), fit: { maxUsers: 400, steps: 1 }, workerScript: null },
    );
    const report = await agent.run(context());
    expect(report!.details).toMatchObject({ status: 'applied', interactions: count, collaborative: 0.3, recency_half_life_hours: 8 });
    expect(state.rankingDefault).toMatchObject({ collaborative: 0.3, recency_half_life_hours: 8 });
    expect(state.defaultRanking.config.weights.collaborative).toBe(0.3);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(
      /applied collaborative 0\.3, recency half-life 8 h, cold start recency [\d.]+(, [^(]+)? \(was collaborative 0, recency half-life 8 h, cold start recency 0\.5\): /,
    );
    const { applied } = await latestFits(database.db);
    expect(applied).toMatchObject({
      status: 'applied',
      choice: { collaborative: 0.3 },
      previous: SHIPPED_RANKING_DEFAULT,
      interactions: count,
    });
    const evidence = await database.db.selectFrom('ranking_fits').select('evidence').executeTakeFirstOrThrow();
    expect(JSON.parse(evidence.evidence)).toMatchObject({ users: 400, difference: { ci_low: expect.any(Number) } });

    // No new interactions: nothing to fit (one count, no evaluation).
    const again = await agent.run(context());
    expect(again!.summary).toMatch(/^not due: \d+ interactions \(\d+ at the last fit\); collaborative 0\.3/);
    expect(await listFits(database.db)).toHaveLength(1);

    // Another instance applies the stored fit; a reverted fit gives way to the shipped default.
    const other = await loadRankingState((limits) => candidatePosts(database.db, limits));
    await rankingDefaultAgent({ db: database.db, state: other }, { mode: auto, intervalSeconds: 60 }).run(context());
    expect(other.rankingDefault).toEqual(state.rankingDefault);
    await database.db.updateTable('ranking_fits').set({ status: 'reverted' }).where('id', '=', applied!.id).execute();
    const report2 = await rankingDefaultAgent({ db: database.db, state: other }, { mode: auto, intervalSeconds: 60 }).run(context());
    expect(report2!.summary).toBe(
      'collaborative 0, recency half-life 8 h, cold start recency 0.5 (no fit applied yet: the starting point the community’s pace names)',
    );
    expect(other.rankingDefault).toEqual(SHIPPED_RANKING_DEFAULT);
  }, 180_000);

  // The trigger fires on any 3-second pause, so a fit may see part of an import: 92% of it (the
  // rest under the fifth that makes a fit due: a follow-up) or 60% (the rest more than a fifth).
  it.each([
    ['follows up a fit made while an import went on, once, though the data grew by less than a fifth', 0.92],
    ['decides again a fit made minutes ago on part of an import that then grew by more than a fifth', 0.6],
  ])(
    '%s, from what was served before it',
    async (_, share) => {
      const rows = await storeCataloguePosts();
      const paused = Math.floor(rows.length * share);
      await insertInteractions(rows.slice(0, paused));
      const agent = rankingFitAgent(
        { db: database.db, state },
        { mode: auto, intervalSeconds: 60, fit: { maxUsers: 120, steps: 1 }, workerScript: null },
      );
      expect((await agent.run(context()))!.details).toMatchObject({ interactions: paused, status: 'applied', collaborative: 0.3 });
      // The rest of the import, fitted again with all of it, from what was served before the partial
      // fit (the shipped point here), not from where that fit went.
      await insertInteractions(rows.slice(paused));
      expect((await agent.run(context()))!.details).toMatchObject({ interactions: rows.length, status: 'applied' });
      const [again, partial] = await listFits(database.db);
      expect([again!.interactions, partial!.interactions]).toEqual([rows.length, paused]);
      expect(again!.previous).toEqual(partial!.choice);
      expect(again!.summary).toMatch(
        /^(applied .*\(was collaborative 0, recency half-life 8 h, cold start recency 0\.5\)|back to collaborative 0, )/,
      );
      // Decided again once: 500 more interactions within the window wait for the fifth.
      const more = rows.slice(0, 500).map((row, n) => ({ ...row, id: `9${row.id.slice(1)}`, user_id: `later${n}` }));
      await insertInteractions(more);
      expect((await agent.run(context()))!.summary).toMatch(/^not due: /);
    },
    180_000,
  );

  it('does not decide again, in a new process, a fit that itself decided again (the stored fits’ times say so)', async () => {
    const rows = await storeCataloguePosts();
    await insertInteractions(rows);
    const nowMs = Date.now();
    const moved = { ...SHIPPED_RANKING_DEFAULT, collaborative: 0.3 };
    // A fit on part of an import moved the default; the next, a minute later, went back.
    const partial = {
      createdAtMs: nowMs - 120_000,
      status: 'applied',
      choice: moved,
      previous: SHIPPED_RANKING_DEFAULT,
      interactions: rows.length - 2_000,
      summary: 'applied collaborative 0.3 (on part of an import)',
      evidence: {},
    };
    await insertFit(database.db, partial);
    await insertFit(database.db, {
      ...partial,
      createdAtMs: nowMs - 60_000,
      choice: SHIPPED_RANKING_DEFAULT,
      previous: moved,
      interactions: rows.length - 1_000,
      summary: 'back to collaborative 0 (decided again)',
    });
    // A new process (nothing in memory) with 1,000 more interactions stored: a follow-up is due.
    const agent = rankingFitAgent(
      { db: database.db, state },
      { mode: auto, intervalSeconds: 60, fit: { maxUsers: 120, steps: 1 }, workerScript: null },
    );
    await agent.run(context());
    const [latest] = await listFits(database.db);
    expect(latest!.interactions).toBe(rows.length);
    // Searched from what the last fit chose (the shipped point), not from what was served before it (collaborative 0.3).
    expect(latest!.previous).toEqual(SHIPPED_RANKING_DEFAULT);
    expect(latest!.summary).toMatch(
      /^(applied .*\(was collaborative 0, recency half-life 8 h, cold start recency 0\.5\)|kept collaborative 0, )/,
    );
  }, 180_000);

  it('follows the operator: off ranks with the starting point (the shipped one here: this pool holds no dated engagement), a pinned point with that point, and neither fits', async () => {
    await storeCatalogue();
    const pinned = await rankingFitAgent(
      { db: database.db, state },
      { mode: parseRankingFitMode('{"collaborative":0.5,"recency_half_life_hours":24}'), intervalSeconds: 60 },
    ).run(context());
    expect(pinned!.summary).toBe(
      'not fitting: collaborative 0.5, recency half-life 24 h, cold start recency 0.5 (pinned by RECSVC_RANKING_FIT)',
    );
    expect(state.defaultRanking.options.recencyHalfLifeHours).toBe(24);
    const hot = await rankingFitAgent(
      { db: database.db, state },
      { mode: parseRankingFitMode('{"collaborative":0,"recency_half_life_hours":8,"cold_start_recency":"hot"}'), intervalSeconds: 60 },
    ).run(context());
    expect(hot!.summary).toBe('not fitting: collaborative 0, recency half-life 8 h, cold start hot (pinned by RECSVC_RANKING_FIT)');
    expect(state.defaultRanking.options.coldStartEngagement).toBe('hot');
    const off = await rankingDefaultAgent({ db: database.db, state }, { mode: { kind: 'off' }, intervalSeconds: 60 }).run(context());
    expect(off!.summary).toBe(
      'collaborative 0, recency half-life 8 h, cold start recency 0.5 (RECSVC_RANKING_FIT=off: the starting point the community’s pace names)',
    );
    expect(state.rankingDefault).toEqual(SHIPPED_RANKING_DEFAULT);
    expect(await listFits(database.db)).toEqual([]);
  }, 60_000);
});

describe('what a fit reads', () => {
  it('names the users of a bounded read who interacted before it: returning, not newcomers', async () => {
    const rows = await storeCataloguePosts();
    await insertInteractions(rows);
    const n = 4_000;
    const read = await loadFitData(database.db, n, 2_000);
    // By hand: the newest n by id; who among their users has a row before the earliest of them.
    const byId = [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const window = byId.slice(-n);
    const earliestMs = Math.min(...window.map((row) => row.created_at_ms));
    const inWindow = new Set(window.map((row) => row.user_id));
    const expected = new Set(byId.filter((row) => row.created_at_ms < earliestMs && inWindow.has(row.user_id)).map((row) => row.user_id));
    expect(read.interactions).toHaveLength(n);
    expect(expected.size).toBeGreaterThan(0);
    expect(expected.size).toBeLessThan(inWindow.size);
    expect(read.returning).toEqual(expected);
    // Every interaction read: no one returns from before the data.
    expect((await loadFitData(database.db, rows.length, 2_000)).returning.size).toBe(0);
  });
});

describe('the agent and recsvc eval --fit', () => {
  it('choose the same point from the same history: the agent on the service holding the history before the cutoff, eval --fit on the files', async () => {
    // What eval splits off for its test: the newest 10%; the service holds only what came before.
    const data = generateSynthetic(generatorOptions('catalogue', { seed: 5, users: 1000 }));
    const posts = createPostsParser('posts.jsonl');
    for (const line of toJsonLines(data.statuses).split('\n')) posts.line(line);
    const interactions = createInteractionsParser('interactions.jsonl');
    for (const line of toJsonLines(data.interactions).split('\n')) interactions.line(line);
    const cutoffMs = cutoffFor(buildDataset(posts.finish(), interactions.finish()).interactions, 0.1);
    await storeCatalogue(cutoffMs);
    // Loaded as `recsvc serve` loads it: the stored counters dated by the newest interactions, so
    // the pace says catalogue and the catalogue's starting point serves, as in eval.
    const served = await loadRankingState(
      (limits) => candidatePosts(database.db, limits),
      {},
      (limit) => newestInteractions(database.db, limit),
    );
    expect(served.rankingDefault).toBe(CATALOGUE_RANKING_DEFAULT);
    const dir = mkdtempSync(join(tmpdir(), 'recsvc-fit-agreement-'));
    writeFileSync(join(dir, 'posts.jsonl'), toJsonLines(data.statuses));
    writeFileSync(join(dir, 'interactions.jsonl'), toJsonLines(data.interactions));
    const [report, cli] = await Promise.all([
      // The agent with its own defaults (FIT_STEPS, the fit's options), in the built child process
      // as `recsvc serve` runs it: on this thread, a minute of fitting under coverage kept the
      // test worker from answering vitest ("Timeout calling onTaskUpdate", CI 2026-11-28).
      rankingFitAgent(
        { db: database.db, state: served },
        {
          mode: auto,
          intervalSeconds: 60,
          workerScript: new URL('../../../dist/server/ranking-state/ranking-fit.child.js', import.meta.url),
        },
      ).run(context()),
      runCli([
        'eval',
        '--posts',
        join(dir, 'posts.jsonl'),
        '--interactions',
        join(dir, 'interactions.jsonl'),
        '--fit',
        '--json',
        '--samples',
        '50',
        '--baselines',
        'popularity',
      ]),
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    const fitted = (JSON.parse(cli.stdout) as { fitted: { point: RankingDefault } }).fitted.point;
    // Both searched from the shipped point, and both kept the catalogue's starting point: where the
    // search ended did not beat it (bench/README.md, "Cosine lists beside EASE, and a fit that must
    // beat what is served").
    expect(report!.details).toMatchObject({ status: 'kept' });
    expect(completeRankingDefault(fitted)).toEqual(CATALOGUE_RANKING_DEFAULT);
    expect(served.rankingDefault).toEqual(completeRankingDefault(fitted));
  }, 600_000);
});

describe('the fit off the serving thread, and soon after an import', () => {
  it('fits in a child process (the built service) exactly as on this thread, reading the database itself where it can', async () => {
    // The built script (npx tsc -p tsconfig.build.json): what `recsvc serve` runs.
    const script = new URL('../../../dist/server/ranking-state/ranking-fit.child.js', import.meta.url);
    expect(existsSync(fileURLToPath(script)), 'build first: npx tsc -p tsconfig.build.json').toBe(true);
    await storeCatalogue();
    const read = { db: database.db, maxInteractions: 100_000, newestPosts: 2_000 };
    const options = { maxUsers: 120, steps: 1, samples: 200 };
    // Sent the data (an in-memory database: nothing else can open it).
    const sent = await runFit(read, SHIPPED_RANKING_DEFAULT, options, new AbortController().signal, script);
    // Reading the database itself: the PostgreSQL schema's URL, or a file copy of the SQLite database.
    let target = database.sharedTarget;
    if (target === undefined) {
      target = join(mkdtempSync(join(tmpdir(), 'recsvc-fit-')), 'fit.db');
      await sql`VACUUM INTO ${target}`.execute(database.db);
    }
    const readByChild = await runFit(
      { ...read, sharedTarget: target },
      SHIPPED_RANKING_DEFAULT,
      options,
      new AbortController().signal,
      script,
    );
    const onThread = await runFit(read, SHIPPED_RANKING_DEFAULT, options, new AbortController().signal, null);
    expect([sent.where, readByChild.where, onThread.where]).toEqual(['child', 'child', 'thread']);
    expect(sent.result).toEqual(onThread.result);
    expect(readByChild.result).toEqual(onThread.result);
    expect(onThread.result.evidence.users).toBe(120);
    // A database the child cannot open fails the run with the child's message.
    await expect(
      runFit(
        { ...read, sharedTarget: join(tmpdir(), 'recsvc-absent', 'none.db') },
        SHIPPED_RANKING_DEFAULT,
        options,
        new AbortController().signal,
        script,
      ),
    ).rejects.toThrow(/the ranking fit failed: cannot open database/);
  }, 240_000);

  it('kills the child process when the run is aborted (the agent timed out or the service stops)', async () => {
    const script = new URL('../../../dist/server/ranking-state/ranking-fit.child.js', import.meta.url);
    await storeCatalogue();
    // The child reads the data itself (a file copy, or the schema's URL): it starts at once.
    let target = database.sharedTarget;
    if (target === undefined) {
      target = join(mkdtempSync(join(tmpdir(), 'recsvc-fit-')), 'fit.db');
      await sql`VACUUM INTO ${target}`.execute(database.db);
    }
    const read = { db: database.db, sharedTarget: target, maxInteractions: 100_000, newestPosts: 2_000 };
    const options = { maxUsers: 120, steps: 1, samples: 200 };
    const abort = new AbortController();
    const run = runFit(read, SHIPPED_RANKING_DEFAULT, options, abort.signal, script);
    setTimeout(() => abort.abort(), 50);
    await expect(run).rejects.toThrow("the ranking fit's child process exited (SIGKILL) without a result");
    // Aborted before the child started (while the data was read here): no child at all.
    const early = new AbortController();
    early.abort();
    await expect(runFit({ ...read, sharedTarget: undefined }, SHIPPED_RANKING_DEFAULT, options, early.signal, script)).rejects.toThrow(
      'the ranking fit was stopped before its child process started',
    );
  }, 60_000);

  it('asks for a fit once an import has come in and gone quiet, not while it goes on, and not again without new data', async () => {
    vi.useFakeTimers();
    try {
      let nowMs = 1_000_000;
      const source = { signalsSeen: 0, lastSignalAtMs: 0 };
      let asked = 0;
      const stop = startFitTrigger(
        source,
        async () => {
          asked += 1;
          return { status: 'success' } as never;
        },
        { checkMs: 1_000, minSignals: 500, quietMs: 3_000, now: () => nowMs },
      );
      const tick = async (ms: number): Promise<void> => {
        nowMs += ms;
        await vi.advanceTimersByTimeAsync(ms);
      };
      // An import in progress: signals keep coming.
      for (let i = 0; i < 10; i++) {
        source.signalsSeen += 200;
        source.lastSignalAtMs = nowMs;
        await tick(1_000);
      }
      expect(asked).toBe(0);
      // It ends: three quiet seconds later, one fit is asked for.
      await tick(4_000);
      expect(asked).toBe(1);
      await tick(10_000);
      expect(asked).toBe(1);
      // A few new signals are not worth a fit; enough are.
      source.signalsSeen += 100;
      source.lastSignalAtMs = nowMs;
      await tick(10_000);
      expect(asked).toBe(1);
      source.signalsSeen += 400;
      source.lastSignalAtMs = nowMs;
      await tick(10_000);
      expect(asked).toBe(2);
      stop();
      source.signalsSeen += 10_000;
      await tick(10_000);
      expect(asked).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('after an import, builds the item model first and then fits with it; a failed build does not stop the fit', async () => {
    vi.useFakeTimers();
    try {
      const ran: string[] = [];
      const agents = {
        register: () => undefined,
        runNow: async (name: string) => {
          ran.push(name);
          if (name === 'item_model' && ran.length > 2) throw new Error('no model this time');
          return { status: 'success' } as never;
        },
      };
      const source = { signalsSeen: 0, lastSignalAtMs: Date.now() };
      const stop = registerRankingFit(
        agents,
        { db: database.db, state: source as unknown as RankingState },
        {
          intervalSeconds: 60,
          log: () => undefined,
          before: ['item_model'],
        },
      );
      source.signalsSeen += 600;
      source.lastSignalAtMs = Date.now();
      await vi.advanceTimersByTimeAsync(10_000);
      expect(ran).toEqual(['item_model', 'ranking_fit']);
      source.signalsSeen += 600;
      source.lastSignalAtMs = Date.now();
      await vi.advanceTimersByTimeAsync(10_000);
      expect(ran).toEqual(['item_model', 'ranking_fit', 'item_model', 'ranking_fit']);
      stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('runs the fit again when it joined a run that started before the import went quiet (it counted part of the import)', async () => {
    vi.useFakeTimers();
    try {
      const ran: string[] = [];
      let fits = 0;
      const agents = {
        register: () => undefined,
        runNow: async (name: string) => {
          ran.push(name);
          if (name !== 'ranking_fit') return { name, status: 'success', durationMs: 0 } as AgentRunOutcome;
          fits += 1;
          // The first: a scheduled run in flight for a minute, joined; the second starts now.
          return { name, status: 'success', durationMs: fits === 1 ? 60_000 : 0 } as AgentRunOutcome;
        },
      };
      const source = { signalsSeen: 0, lastSignalAtMs: Date.now() };
      const stop = registerRankingFit(
        agents,
        { db: database.db, state: source as unknown as RankingState },
        { intervalSeconds: 60, log: () => undefined, before: ['item_model'] },
      );
      source.signalsSeen += 600;
      source.lastSignalAtMs = Date.now();
      await vi.advanceTimersByTimeAsync(10_000);
      expect(ran).toEqual(['item_model', 'ranking_fit', 'ranking_fit']);
      // A run of its own is not repeated.
      expect(await runFreshly(agents, 'item_model')).toMatchObject({ status: 'success' });
      expect(ran).toEqual(['item_model', 'ranking_fit', 'ranking_fit', 'item_model']);
      stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the default before any fit', () => {
  it('follows the pace: a catalogue’s starting point once the pool’s dated engagements say so, a chosen point over it, and back', async () => {
    const rows = await storeCataloguePosts();
    const pooled = await loadRankingState((limits) => candidatePosts(database.db, limits));
    // The stored counters are undated: no pace yet, the shipped point.
    expect(pooled.rankingDefault).toBe(SHIPPED_RANKING_DEFAULT);
    const nowMs = Date.now();
    pooled.storeList('someone', 'list', [], nowMs);
    // The catalogue's favourites, dated (its posts years old when engaged with), as the writers count them.
    let dated = 0;
    for (const row of rows) {
      const post = pooled.index.get(row.post_id);
      if (post === undefined || row.action_type !== 'favorite') continue;
      pooled.index.updateCounts(row.post_id, { ...post, favourites: post.favourites + 1 }, row.created_at_ms);
      if (++dated === PACE_MIN_SAMPLES) break;
    }
    expect(pooled.index.pace.catalogue()).toBe(true);
    expect(pooled.rankingDefault).toBe(CATALOGUE_RANKING_DEFAULT);
    // Where catalogue fits go: collaborative 1, popularity 0.1 among the four, no cap of 3 per author.
    expect(pooled.defaultRanking.config.weights.collaborative).toBe(1);
    expect(pooled.defaultRanking.config.weights.content_engagement).toBe(0.1);
    expect(pooled.defaultRanking.options.perAuthorCap).toBe(20);
    // Lists ranked the old way are dropped.
    expect(pooled.cachedList('someone', 'list', nowMs)).toBeUndefined();
    // A fit's (or an operator's) point wins; taking it back returns to the pace's.
    const chosen = { collaborative: 1, recency_half_life_hours: 24 };
    expect(pooled.setRankingDefault(chosen)).toBe(true);
    expect(pooled.rankingDefault).toEqual(completeRankingDefault(chosen));
    expect(pooled.setRankingDefault(undefined)).toBe(true);
    expect(pooled.rankingDefault).toBe(CATALOGUE_RANKING_DEFAULT);

    // The first fit searches from the shipped point (the pace's point serves until there is
    // evidence): its step beats the shipped point, but where it ends must beat what is served
    // too, and on this catalogue it does not: the fit is kept, the pace's point still serves.
    await insertInteractions(rows);
    const logged: string[] = [];
    const report = await rankingFitAgent(
      { db: database.db, state: pooled },
      { mode: auto, intervalSeconds: 60, log: (line) => logged.push(line), fit: { maxUsers: 120, steps: 1 }, workerScript: null },
    ).run(context());
    expect(report!.details).toMatchObject({ status: 'kept', collaborative: 1, per_author_cap: 20 });
    expect(logged[0]).toMatch(
      /^ranking_fit \S+: applied collaborative 0\.3, .*\(was collaborative 0, recency half-life 8 h, cold start recency 0\.5\)/,
    );
    expect(logged[0]).toMatch(
      /; kept collaborative 1, .* \(served\): the search reached collaborative 0\.3, .*not better than it beyond doubt/,
    );
    const { latest, applied } = await latestFits(database.db);
    expect(applied).toBeUndefined();
    expect(latest).toMatchObject({ status: 'kept', previous: CATALOGUE_RANKING_DEFAULT, choice: CATALOGUE_RANKING_DEFAULT });
    expect(pooled.rankingDefault).toBe(CATALOGUE_RANKING_DEFAULT);
  }, 120_000);
});

/**
 * The write paths of one service, wired by hand on a real migrated SQLite database with a
 * PrivacyDouble, plus an ACTIVE two-variant experiment (50/50, all traffic) and a few posts:
 * what the enforcement tests drive and then query table by table.
 */
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import { DEFAULT_ALGORITHM_CONFIG } from '../../../src/ranking/ranking.types.js';
import type { TrackingLevel } from '../../../src/privacy/tracking-level.js';
import { AnalyticsService } from '../../../server/experiments/events/analytics.service.js';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import { experimentMeasurement } from '../../../server/experiments/measurement.service.js';
import { ExperimentRuntime } from '../../../server/experiments/experiment-runtime.js';
import { insertExperiment, insertVariants, openActivePeriod } from '../../../server/experiments/experiment.repository.js';
import { ServingRecorder } from '../../../server/experiments/serving-recorder.js';
import { InteractionService } from '../../../server/interactions/interaction.service.js';
import { createServiceMetrics } from '../../../server/platform/metrics/service-metrics.js';
import { candidatePosts, PostService } from '../../../server/posts/post.service.js';
import { loadRankingState, type RankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { defaultRankingPolicy } from '../../../server/recommendations/default-ranking-policy.js';
import { FeedbackService } from '../../../server/recommendations/feedback.service.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { openTestDatabase } from '../../helpers/test-database.js';
import { PrivacyDouble } from './privacy-double.js';

export const POSTS = Array.from({ length: 8 }, (_, i) => postId(i + 1));

export interface Enforcement {
  database: DatabaseHandle;
  privacy: PrivacyDouble;
  state: RankingState;
  posts: PostService;
  interactions: InteractionService;
  feedback: FeedbackService;
  analytics: AnalyticsService;
  runtime: ExperimentRuntime;
  recorder: ServingRecorder;
  experimentId: number;
  /** Errors the recorder logged (it never throws). */
  recorderErrors: unknown[];
  /** The clock of the experiment services (ms); tests move it. */
  clock: { now: number };
  close(): Promise<void>;
}

/** Builds the services over a fresh database; `levels` sets users' tracking levels. */
export async function enforcement(
  levels: Record<string, TrackingLevel> = {},
  defaultLevel: TrackingLevel = 'limited',
): Promise<Enforcement> {
  const opened = await openTestDatabase();
  const { database } = opened;
  const db = database.db;
  const privacy = new PrivacyDouble(defaultLevel);
  for (const [user, level] of Object.entries(levels)) privacy.set(user, level);
  const clock = { now: Date.now() };
  const now = () => clock.now;
  const state = await loadRankingState((limits) => candidatePosts(db, limits));
  const posts = new PostService(db, state);
  await posts.ingest(POSTS.map((_, i) => makeStatus({ n: i + 1, author: `author${1 + (i % 3)}`, tags: ['cats'] })));
  const interactions = new InteractionService(db, state, posts, privacy, experimentMeasurement);
  const feedback = new FeedbackService({ db, state, posts, interactions }, defaultRankingPolicy, privacy, experimentMeasurement);
  const analytics = new AnalyticsService(db, createServiceMetrics(), now, privacy);
  const runtime = new ExperimentRuntime(db, { now, privacy });
  const recorderErrors: unknown[] = [];
  const log = { error: (error: unknown) => recorderErrors.push(error) } as unknown as FastifyBaseLogger;
  const recorder = new ServingRecorder(db, log, now, privacy);
  const experimentId = await startExperiment(database, clock.now - 60_000);
  return {
    database,
    privacy,
    state,
    posts,
    interactions,
    feedback,
    analytics,
    runtime,
    recorder,
    experimentId,
    recorderErrors,
    clock,
    close: async () => {
      await recorder.drain();
      await opened.close();
    },
  };
}

/** An ACTIVE experiment (control/treatment 50/50, all traffic) active since `startMs`. */
async function startExperiment(database: DatabaseHandle, startMs: number): Promise<number> {
  const at = new Date(startMs).toISOString();
  const id = await insertExperiment(database.db, {
    name: 'privacy',
    description: '',
    status: 'ACTIVE',
    traffic_percentage: 100,
    minimum_sample_size: 1,
    confidence_level: 0.95,
    primary_metric: 'click_through_rate',
    gates: null,
    created_at: at,
    updated_at: at,
    started_at: at,
    ended_at: null,
  });
  const variant = (position: number, name: string) => ({
    experiment_id: id,
    position,
    name,
    description: '',
    traffic_allocation: 50,
    algorithm_config: JSON.stringify(DEFAULT_ALGORITHM_CONFIG),
    is_control: position === 0 ? 1 : 0,
    blocked: 0,
    blocked_at: null,
    blocked_reason: null,
  });
  await insertVariants(database.db, [variant(0, 'control'), variant(1, 'treatment')]);
  await openActivePeriod(database.db, id, startMs);
  return id;
}

/** Every row of `table` as plain objects. */
export async function rowsOf(database: DatabaseHandle, table: string): Promise<Record<string, unknown>[]> {
  return (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}`.execute(database.db)).rows;
}

/** Rows of `table` whose `column` equals `value`. */
export async function countWhere(database: DatabaseHandle, table: string, column: string, value: string): Promise<number> {
  const result = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${value}`.execute(
    database.db,
  );
  return Number(result.rows[0]?.n ?? 0);
}

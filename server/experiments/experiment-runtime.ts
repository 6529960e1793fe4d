/**
 * The hot path of experiments: which ranking a user gets. Keeps the open (ACTIVE or
 * PAUSED) experiments and users' enrolments in memory; lifecycle changes and gate
 * blocks call `invalidate()` (with Redis, every other instance then forgets too:
 * server/platform/redis/experiment-fanout.ts), and the list is re-read at most every `refreshMs` so
 * that changes made by another process are seen too (a CLI, or an instance while Redis is down).
 *
 * The rule for several experiments: a user is enrolled in at most one open experiment
 * at a time. Experiments are considered in the order they were first started (then by
 * id). A user already recorded in an open experiment stays in it (while it is PAUSED
 * they get the default ranking, and are not enrolled elsewhere); otherwise the first
 * ACTIVE experiment whose traffic gate admits the user records their assignment. So the
 * oldest running experiment that enrols a user wins, and a newer one only sees users
 * that older ones left out, chosen by an independent hash: its split stays unbiased.
 *
 * Users an exclusion rule names (`excludeUsersWhen`: the settings' experiments opt-out)
 * are enrolled nowhere: no assignment is recorded and they get the default ranking, even
 * when an assignment was recorded before they opted out (it stays, as history). Whoever
 * changes a rule's answer for a user calls `forgetUser` so the cached enrolment goes.
 *
 * Privacy (issue 12): a user whose tracking level does not allow enrolment (`none`) is
 * excluded the same way — no assignment row, the default ranking. Assignments are recorded
 * and looked up by the user's pseudonym; the bucket still comes from the spec's rule on
 * the user id itself (src/experiments/assignment.ts).
 */
import type { Kysely } from 'kysely';
import { createAssigner, type Assignment } from '../../src/experiments/assignment.js';
import type { AlgorithmConfig } from '../../src/ranking/ranking.types.js';
import { DEFAULT_ALGORITHM_CONFIG, SHIPPED_RANKING_OPTIONS } from '../../src/ranking/ranking.types.js';
import type { Database } from '../platform/db/database.js';
import type { PrivacyPolicy } from '../privacy/privacy-policy.types.js';
import { UNWIRED_PRIVACY } from '../privacy/privacy-policy.types.js';
import type { RankingChoice } from '../recommendations/ranking-policy.types.js';
import { findUserAssignments, recordAssignment } from './assignment.repository.js';
import { LruCache } from '../../src/lru-cache.js';
import { listExperimentRows, listVariantRows } from './experiment.repository.js';
import { toVariant } from './experiment.mapper.js';

export interface RuntimeVariant {
  name: string;
  traffic_allocation: number;
  config: AlgorithmConfig;
  isControl: boolean;
  blocked: boolean;
}

export interface OpenExperiment {
  id: number;
  status: 'ACTIVE' | 'PAUSED';
  variants: RuntimeVariant[];
  control: RuntimeVariant;
  assign: (userId: string) => Assignment<RuntimeVariant>;
}

export interface Enrolment {
  experimentId: number;
  variant: string;
}

export interface ExperimentRuntimeOptions {
  now?: () => number;
  /** Re-read the open experiments at least this often (ms). */
  refreshMs?: number;
  /** Users whose enrolment is cached. */
  cacheSize?: number;
  /** Who may be enrolled, and the pseudonyms assignments are recorded under. */
  privacy?: Pick<PrivacyPolicy, 'allowanceFor' | 'pseudonym'>;
}

/** The ranking everyone outside experiments gets. */
export const DEFAULT_CHOICE: RankingChoice = Object.freeze({
  config: DEFAULT_ALGORITHM_CONFIG,
  options: SHIPPED_RANKING_OPTIONS,
  algorithm: 'default',
});

export class ExperimentRuntime {
  private open: { loadedAt: number; experiments: Promise<OpenExperiment[]> } | undefined;
  private readonly enrolments: LruCache<string, Enrolment | null>;
  private readonly pending = new Map<string, Promise<Enrolment | null>>();
  private readonly exclusions: Array<(userId: string) => Promise<boolean>> = [];
  private generation = 0;
  private readonly invalidationListeners: Array<() => void> = [];
  private readonly now: () => number;
  private readonly refreshMs: number;

  private readonly privacy: Pick<PrivacyPolicy, 'allowanceFor' | 'pseudonym'>;

  constructor(
    private readonly db: Kysely<Database>,
    options: ExperimentRuntimeOptions = {},
  ) {
    this.privacy = options.privacy ?? UNWIRED_PRIVACY;
    this.now = options.now ?? Date.now;
    this.refreshMs = options.refreshMs ?? 30_000;
    this.enrolments = new LruCache(options.cacheSize ?? 200_000);
  }

  /** Forgets the cached experiments and enrolments (after a lifecycle change or a block), and says so to the listeners. */
  invalidate(): void {
    this.applyRemoteInvalidation();
    for (const listener of this.invalidationListeners) listener();
  }

  /** Called after each invalidate() of this process (server/platform/redis/experiment-fanout.ts tells the other instances). */
  onInvalidate(listener: () => void): void {
    this.invalidationListeners.push(listener);
  }

  /** Another instance changed an experiment: forget what is cached here, without telling anyone. */
  applyRemoteInvalidation(): void {
    this.open = undefined;
    this.enrolments.clear();
    this.generation++;
  }

  /** Adds a rule that keeps users out of every experiment (checked before any assignment is read or recorded). */
  excludeUsersWhen(excluded: (userId: string) => Promise<boolean>): void {
    this.exclusions.push(excluded);
  }

  /** Forgets one user's cached enrolment (an exclusion rule's answer for them changed). */
  forgetUser(userId: string): void {
    this.enrolments.delete(userId);
    // A lookup in flight may have read the old answer: it must not be cached.
    if (this.pending.has(userId)) this.generation++;
  }

  /** The ranking for this user, recording a first assignment when an ACTIVE experiment enrols them. */
  async choose(userId: string): Promise<RankingChoice> {
    const experiments = await this.openExperiments();
    if (!experiments.some((e) => e.status === 'ACTIVE')) return DEFAULT_CHOICE;
    const enrolment = await this.enrolmentOf(userId, experiments);
    const experiment = enrolment && experiments.find((e) => e.id === enrolment.experimentId);
    if (!enrolment || !experiment || experiment.status !== 'ACTIVE') return DEFAULT_CHOICE;
    const variant = experiment.variants.find((v) => v.name === enrolment.variant);
    if (!variant) return DEFAULT_CHOICE;
    // A blocked variant's users get the control's ranking but stay counted in their variant.
    return {
      config: variant.blocked ? experiment.control.config : variant.config,
      algorithm: `exp${experiment.id}:${variant.name}${variant.blocked ? ':blocked' : ''}`,
      enrolment: { experimentId: experiment.id, variant: variant.name },
    };
  }

  /** The open experiments, oldest first start first. */
  async openExperiments(): Promise<OpenExperiment[]> {
    const nowMs = this.now();
    if (this.open && nowMs - this.open.loadedAt < this.refreshMs) return this.open.experiments;
    const previous = this.open;
    const load = this.loadOpen();
    this.open = { loadedAt: nowMs, experiments: load };
    load.catch(() => {
      if (this.open?.experiments === load) this.open = undefined;
    });
    if (previous) {
      const [before, after] = await Promise.all([previous.experiments.catch(() => []), load]);
      if (signature(before) !== signature(after)) {
        this.enrolments.clear();
        this.generation++;
      }
    }
    return load;
  }

  private async loadOpen(): Promise<OpenExperiment[]> {
    const rows = await listExperimentRows(this.db, ['ACTIVE', 'PAUSED']);
    const variantRows = await listVariantRows(
      this.db,
      rows.map((row) => row.id),
    );
    rows.sort((a, b) => (a.started_at ?? '').localeCompare(b.started_at ?? '') || a.id - b.id);
    return rows.map((row) => {
      const variants = variantRows
        .filter((v) => v.experiment_id === row.id)
        .map(toVariant)
        .map((v) => ({
          name: v.name,
          traffic_allocation: v.traffic_allocation,
          config: v.algorithm_config,
          isControl: v.is_control,
          blocked: v.blocked,
        }));
      const control: RuntimeVariant = variants.find((v) => v.isControl) ?? variants[0]!;
      return {
        id: row.id,
        status: row.status as 'ACTIVE' | 'PAUSED',
        variants,
        control,
        assign: createAssigner(row.id, variants, row.traffic_percentage),
      };
    });
  }

  private async enrolmentOf(userId: string, experiments: readonly OpenExperiment[]): Promise<Enrolment | null> {
    const cached = this.enrolments.get(userId);
    if (cached !== undefined) return cached;
    const inFlight = this.pending.get(userId);
    if (inFlight) return inFlight;
    const generation = this.generation;
    const lookup = this.resolveEnrolment(userId, experiments).finally(() => this.pending.delete(userId));
    this.pending.set(userId, lookup);
    const enrolment = await lookup;
    if (generation === this.generation) this.enrolments.set(userId, enrolment);
    return enrolment;
  }

  private async resolveEnrolment(userId: string, experiments: readonly OpenExperiment[]): Promise<Enrolment | null> {
    if (!this.privacy.allowanceFor(userId).enrolInExperiments) return null;
    for (const excluded of this.exclusions) if (await excluded(userId)) return null;
    const pseudonym = this.privacy.pseudonym(userId);
    const recorded = await findUserAssignments(
      this.db,
      pseudonym,
      experiments.map((e) => e.id),
    );
    for (const experiment of experiments) {
      const row = recorded.find((r) => r.experiment_id === experiment.id);
      if (row) return { experimentId: row.experiment_id, variant: row.variant };
    }
    for (const experiment of experiments) {
      if (experiment.status !== 'ACTIVE') continue;
      const { variant, bucket } = experiment.assign(userId);
      if (!variant) continue;
      const row = await recordAssignment(
        this.db,
        { experiment_id: experiment.id, user_id: pseudonym, variant: variant.name, assigned_at_ms: this.now() },
        { rawUserId: userId, bucket },
      );
      return { experimentId: row.experiment_id, variant: row.variant };
    }
    return null;
  }
}

function signature(experiments: readonly OpenExperiment[]): string {
  return experiments.map((e) => `${e.id}:${e.status}:${e.variants.map((v) => (v.blocked ? 1 : 0)).join('')}`).join(',');
}

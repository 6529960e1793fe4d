/**
 * Records what was served to enrolled users: one impression per post, and per variant
 * the request, error and cache counters and the latency histogram. Impression rows (user
 * id: the pseudonym) only for users at tracking level `full`; for `limited` users only
 * their per-user impression count grows (experiment_user_counts); `none` users are never
 * enrolled, and nothing about them is recorded even if a list reaches here. Lists served in the
 * same tick are written in one transaction; each caller's promise resolves only after
 * that transaction committed (a write is acknowledged only after its commit).
 */
import type { Insertable, Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { latencyBucketOf } from '../../src/experiments/stats/latency-histogram.js';
import type { Database } from '../platform/db/database.js';
import type { PrivacyPolicy } from '../privacy/privacy-policy.types.js';
import { UNWIRED_PRIVACY } from '../privacy/privacy-policy.types.js';
import type { ServedList } from '../recommendations/ranking-policy.types.js';
import { addImpressionDayCounts } from './experiment-data.repository.js';
import type { ExperimentImpressionsTable } from './experiment.tables.js';
import { addImpressionCounts, addLatencyCounts, addPerformance, insertImpressions } from './serving.repository.js';

interface VariantDelta {
  experimentId: number;
  variant: string;
  requests: number;
  errors: number;
  cacheHits: number;
  cacheLookups: number;
  latency: Map<number, number>;
}

export class ServingRecorder {
  private queue: ServedList[] = [];
  private scheduled: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => number = Date.now,
    private readonly privacy: Pick<PrivacyPolicy, 'allowanceFor' | 'pseudonym'> = UNWIRED_PRIVACY,
  ) {}

  /** Queues a served list of an enrolled user; resolves once it is committed (never rejects). */
  record(list: ServedList): Promise<void> {
    if (!list.choice.enrolment || !this.privacy.allowanceFor(list.userId).storeAggregateCounts) return Promise.resolve();
    this.queue.push(list);
    if (!this.scheduled) {
      const flush = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
      this.scheduled = flush;
      this.inFlight.add(flush);
      void flush.finally(() => this.inFlight.delete(flush));
    }
    return this.scheduled;
  }

  /** Waits for every queued list to be written (at shutdown). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = undefined;
    const { impressions, impressionCounts, deltas, servedAt } = this.summarise(batch);
    try {
      await this.db.transaction().execute(async (trx) => {
        await insertImpressions(trx, impressions);
        await addImpressionCounts(trx, impressionCounts);
        await addImpressionDayCounts(trx, impressionCounts, servedAt);
        for (const d of deltas.values()) {
          await addPerformance(trx, {
            experiment_id: d.experimentId,
            variant: d.variant,
            requests: d.requests,
            errors: d.errors,
            cache_hits: d.cacheHits,
            cache_lookups: d.cacheLookups,
          });
          await addLatencyCounts(trx, d.experimentId, d.variant, d.latency);
        }
      });
    } catch (error) {
      this.log.error({ err: error, lists: batch.length }, 'recording experiment impressions failed');
    }
  }

  private summarise(batch: readonly ServedList[]) {
    const impressions: Insertable<ExperimentImpressionsTable>[] = [];
    const impressionCounts: { experimentId: number; pseudonym: string; impressions: number }[] = [];
    const deltas = new Map<string, VariantDelta>();
    const servedAt = this.now();
    for (const list of batch) {
      const enrolment = list.choice.enrolment;
      if (!enrolment) continue;
      const key = `${enrolment.experimentId}\u0000${enrolment.variant}`;
      let d = deltas.get(key);
      if (!d) {
        d = {
          experimentId: enrolment.experimentId,
          variant: enrolment.variant,
          requests: 0,
          errors: 0,
          cacheHits: 0,
          cacheLookups: 0,
          latency: new Map(),
        };
        deltas.set(key, d);
      }
      d.requests += 1;
      d.errors += list.failed ? 1 : 0;
      d.cacheLookups += 1;
      d.cacheHits += list.cacheHit ? 1 : 0;
      const bucket = latencyBucketOf(list.latencyMs);
      d.latency.set(bucket, (d.latency.get(bucket) ?? 0) + 1);
      if (list.failed) continue;
      const pseudonym = this.privacy.pseudonym(list.userId);
      if (!this.privacy.allowanceFor(list.userId).storeEventRows) {
        if (list.items.length > 0)
          impressionCounts.push({ experimentId: enrolment.experimentId, pseudonym, impressions: list.items.length });
        continue;
      }
      for (const item of list.items) {
        impressions.push({
          experiment_id: enrolment.experimentId,
          variant: enrolment.variant,
          user_id: pseudonym,
          post_id: item.postId,
          score: item.score,
          reason_code: item.reasonCode,
          served_at_ms: servedAt,
        });
      }
    }
    return { impressions, impressionCounts, deltas, servedAt };
  }
}

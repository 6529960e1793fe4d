/**
 * An experiment's results: metrics, analysis, gates and the JSON Lines export, all built
 * from the same stream of enrolled users (user-counts.service.ts) and the same
 * src/experiments code the CLI runs offline.
 */
import type { Kysely } from 'kysely';
import { analyzeExperiment, type AnalysisResult } from '../../src/experiments/stats/analysis.js';
import { instanceOfUser } from '../../src/experiments/canonical-user-id.js';
import { InstanceAccumulators } from '../../src/experiments/stats/instance-breakdown.js';
import { ratioValue } from '../../src/experiments/stats/delta-method.js';
import type { Experiment } from '../../src/experiments/experiment-response.schema.js';
import type { RecordedAnalysisMethod } from '../../src/experiments/experiment.schema.js';
import type { AnalysisMethod } from '../../src/experiments/stats/sequential.js';
import type { ExperimentGates } from '../../src/experiments/gates/experiment-gates.schema.js';
import type { ExperimentMetrics, VariantMetrics } from '../../src/experiments/experiment-metrics.schema.js';
import { experimentLine, performanceLine, userLine, type PerformanceRecord } from '../../src/experiments/io/export-format.js';
import type { RecordedExperimentType } from '../../src/experiments/interleaving/experiment-type.js';
import { interleavingLine } from '../../src/experiments/interleaving/interleaving-export.js';
import { experimentGatesReport } from '../../src/experiments/gates/gate-report.js';
import { isGateRule, type GateRule } from '../../src/experiments/gates/gates.js';
import { histogramQuantile } from '../../src/experiments/stats/latency-histogram.js';
import { COUNT_KEYS, METRIC_NAMES, emptyCounts, type MetricName, type UserCounts } from '../../src/experiments/metrics.js';
import { createAccumulators, type VariantAccumulator } from '../../src/experiments/stats/variant-accumulator.js';
import type { Database } from '../platform/db/database.js';
import { listActivePeriods } from './experiment.repository.js';
import { impressionAggregates, latencyBucketRows, performanceRows, scoreBins } from './experiment-data.repository.js';
import { iterateEnrolledUsers, USER_PAGE_SIZE } from './user-counts.service.js';
import { interleavingUserCounts } from './interleaving/interleaving-results.js';

interface Accumulated {
  accumulators: Map<string, VariantAccumulator>;
  instances: InstanceAccumulators;
  totals: Map<string, UserCounts>;
  cold: Map<string, { clicks: number; impressions: number }>;
}

export class ExperimentResultsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The decisions.md analysis; `metric` picks the primary metric (default: the experiment's),
   * `method` overrides the experiment's recorded analysis method for this read; `byInstance`
   * adds the per-instance breakdown.
   */
  async analysis(
    experiment: Experiment & Partial<RecordedAnalysisMethod>,
    metric?: MetricName,
    method?: AnalysisMethod,
    options: { byInstance?: boolean } = {},
  ): Promise<AnalysisResult> {
    const { accumulators, instances } = await this.accumulate(experiment);
    return analyzeExperiment(experiment, accumulators, {
      primaryMetric: metric ?? (experiment.primary_metric as MetricName),
      ...(method === undefined ? {} : { method }),
      ...(options.byInstance === true ? { instances: instances.entries() } : {}),
    });
  }

  /** Per variant: users, count totals and the engagement, algorithm and performance groups. */
  async metrics(experiment: Experiment): Promise<ExperimentMetrics> {
    const { accumulators, totals, cold } = await this.accumulate(experiment);
    const performance = await this.performance(experiment);
    const activeSeconds = await this.activeSeconds(experiment.id);
    const aggregates = new Map((await impressionAggregates(this.db, experiment.id)).map((row) => [row.variant, row]));
    const bins = await scoreBins(this.db, experiment.id);
    const ratio = (num: number, den: number): number | null => (den > 0 ? num / den : null);
    const variants: VariantMetrics[] = experiment.variants.map((v) => {
      const acc = accumulators.get(v.name) as VariantAccumulator;
      const agg = aggregates.get(v.name);
      const perf = performance.find((p) => p.variant === v.name) as PerformanceRecord;
      const coldStats = cold.get(v.name) ?? { clicks: 0, impressions: 0 };
      const engagement = Object.fromEntries(METRIC_NAMES.map((m) => [m, ratioValue(acc.moments(m))])) as Record<MetricName, number | null>;
      return {
        name: v.name,
        is_control: v.is_control,
        blocked: v.blocked,
        users: acc.users,
        totals: totals.get(v.name) ?? emptyCounts(),
        engagement,
        algorithm: {
          avg_recommendation_score: ratio(Number(agg?.score_sum ?? 0), Number(agg?.impressions ?? 0)),
          score_distribution: Array.from({ length: 10 }, (_, bin) => ({
            lower: bin / 10,
            upper: (bin + 1) / 10,
            count: Number(bins.find((b) => b.variant === v.name && Number(b.bin) === bin)?.count ?? 0),
          })),
          recommendation_diversity: ratio(Number(agg?.distinct_per_user_sum ?? 0), Number(agg?.impressions ?? 0)),
          cold_start_performance: ratio(coldStats.clicks, coldStats.impressions),
          semantic_match_quality: ratio(Number(agg?.semantic_clicked ?? 0), Number(agg?.semantic_impressions ?? 0)),
        },
        performance: {
          response_time_p95: perf.latency_ms_p95,
          recommendations_per_second: ratio(perf.requests, activeSeconds),
          error_rate: ratio(perf.errors, perf.requests),
          cache_hit_rate: ratio(perf.cache_hits, perf.cache_lookups),
          requests: perf.requests,
          errors: perf.errors,
        },
      };
    });
    return { experiment_id: experiment.id, status: experiment.status, active_seconds: activeSeconds, variants };
  }

  /**
   * Every variant against every gate with the experiment's thresholds, judged by `rule`
   * (default: the experiment's stored gate_rule, else the interval bounds, with the
   * experiment's method and confidence level); SRM fails the experiment.
   */
  async gates(experiment: Experiment, rule?: GateRule): Promise<ExperimentGates> {
    const { accumulators } = await this.accumulate(experiment);
    const chosen = rule ?? (isGateRule(experiment.gate_rule) ? experiment.gate_rule : undefined);
    return experimentGatesReport(
      experiment,
      accumulators,
      await this.performance(experiment),
      chosen === undefined ? {} : { rule: chosen },
    );
  }

  /**
   * The JSON Lines export, line by line (each ending in a newline), streamed from the database:
   * the experiment line with `exported_at` (this service's clock), user lines with
   * `assigned_at` and their counts per UTC day (`days`, when they add up: user-counts.service.ts),
   * and for an interleaving experiment the per-user team counts its analysis reads.
   */
  async *exportLines(experiment: Experiment & Partial<RecordedExperimentType>): AsyncGenerator<string> {
    yield `${experimentLine({ ...experiment, exported_at: new Date(this.now()).toISOString() })}\n`;
    for await (const user of iterateEnrolledUsers(this.db, experiment.id, USER_PAGE_SIZE, { days: true })) {
      const { cold_start: _cold, assigned_at_ms: assignedAtMs, ...record } = user;
      yield `${userLine({ ...record, instance: instanceOf(user), assigned_at: new Date(assignedAtMs).toISOString() })}\n`;
    }
    if (experiment.type === 'interleaving') {
      for (const [userId, counts] of await interleavingUserCounts(this.db, experiment))
        yield `${interleavingLine(experiment, userId, counts)}\n`;
    }
    for (const record of await this.performance(experiment)) yield `${performanceLine(record)}\n`;
  }

  /** Per variant (every variant, zeros when nothing was served): counters and the interpolated p95. */
  async performance(experiment: Experiment): Promise<PerformanceRecord[]> {
    const rows = await performanceRows(this.db, experiment.id);
    const buckets = await latencyBucketRows(this.db, experiment.id);
    return experiment.variants.map((v) => {
      const row = rows.find((r) => r.variant === v.name);
      const histogram = new Map(buckets.filter((b) => b.variant === v.name).map((b) => [Number(b.bucket), Number(b.count)]));
      return {
        variant: v.name,
        requests: Number(row?.requests ?? 0),
        errors: Number(row?.errors ?? 0),
        latency_ms_p95: histogramQuantile(histogram, 0.95),
        cache_hits: Number(row?.cache_hits ?? 0),
        cache_lookups: Number(row?.cache_lookups ?? 0),
        latency_histogram: Object.fromEntries(histogram),
      };
    });
  }

  /** Seconds the experiment has spent ACTIVE (the open period counts up to now). */
  async activeSeconds(experimentId: number): Promise<number> {
    const periods = await listActivePeriods(this.db, experimentId);
    const nowMs = this.now();
    return periods.reduce((total, p) => total + Math.max(0, (p.ended_at_ms ?? nowMs) - p.started_at_ms), 0) / 1000;
  }

  private async accumulate(experiment: Experiment): Promise<Accumulated> {
    const names = experiment.variants.map((v) => v.name);
    const accumulators = createAccumulators(names);
    const totals = new Map(names.map((name) => [name, emptyCounts()]));
    const cold = new Map(names.map((name) => [name, { clicks: 0, impressions: 0 }]));
    const instances = new InstanceAccumulators();
    for await (const user of iterateEnrolledUsers(this.db, experiment.id)) {
      const accumulator = accumulators.get(user.variant);
      const total = totals.get(user.variant);
      if (!accumulator || !total) continue;
      accumulator.add(user, user.pre_engagement);
      instances.add(instanceOf(user), user.variant, user);
      for (const key of COUNT_KEYS) total[key] += user[key];
      if (user.cold_start) {
        const c = cold.get(user.variant) as { clicks: number; impressions: number };
        c.clicks += user.clicks;
        c.impressions += user.impressions;
      }
    }
    return { accumulators, totals, cold, instances };
  }
}

/** The user's recorded instance, else the host of their id (ids recorded before the instance column). */
function instanceOf(user: { user_id: string | number; instance?: string | null | undefined }): string {
  return user.instance ?? instanceOfUser(user.user_id);
}

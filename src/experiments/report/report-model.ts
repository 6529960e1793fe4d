/**
 * What the HTML report shows, computed from snapshots of an experiment's data (each an export:
 * per-variant accumulators and performance records, taken at a time): the analysis of every
 * snapshot with the experiment's own method (sequential: the confidence sequences, valid at
 * every snapshot), the series the charts draw, and the gates of the latest snapshot. Pure.
 */
import { analyzeExperiment, type AnalysisDesign, type AnalysisResult } from '../stats/analysis.js';
import type { GateThresholds } from '../experiment.schema.js';
import { gateInputOptionsFor, gateInputsFromData, type GatePerformanceRecord } from '../gates/gate-inputs.js';
import {
  DEFAULT_GATE_RULE,
  evaluateGates,
  isGateRule,
  resolveThresholds,
  variantGates,
  type GateName,
  type GateResult,
  type GateRule,
  type GateVerdict,
} from '../gates/gates.js';
import { METRIC_NAMES, isMetricName, type MetricName } from '../metrics.js';
import type { AnalysisMethod } from '../stats/sequential.js';
import { sampleRatioMismatch, type SrmResult } from '../stats/srm.js';
import type { VariantAccumulator } from '../stats/variant-accumulator.js';
import type { ChartSeries } from './svg-chart.js';
import type { ExportTimeline } from './timeline.js';

/** The experiment as the export's experiment line (or the server) describes it. */
export interface ReportDesign extends AnalysisDesign {
  id?: number | string;
  name?: string;
  status?: string;
  primary_metric?: string;
  gates?: GateThresholds;
  gate_rule?: string;
}

/** The experiment's data as of one moment. */
export interface ReportSnapshot {
  /** When the data was taken (ms since the epoch). */
  at: number;
  accumulators: ReadonlyMap<string, VariantAccumulator>;
  performance: readonly GatePerformanceRecord[];
}

/** The gates of the latest snapshot, per variant (the shape `gates check` reports too). */
export interface ReportGates {
  verdict: GateVerdict;
  rule: GateRule;
  srm: SrmResult;
  thresholds: Record<GateName, number>;
  variants: Array<{ name: string; is_control: boolean; users: number; verdict: GateVerdict; gates: GateResult[] }>;
}

export interface ReportModel {
  design: ReportDesign;
  source: string;
  generatedAt: number;
  method: AnalysisMethod;
  primaryMetric: MetricName;
  /** Metrics in the order shown: the primary, the guardrails, then the exploratory ones. */
  metrics: MetricName[];
  control: string;
  treatments: string[];
  /** Every snapshot's analysis, oldest first. */
  analyses: Array<{ at: number; analysis: AnalysisResult }>;
  latest: AnalysisResult;
  gates: ReportGates;
  /** Where the points over time come from: the export's per-day counts, or one point per snapshot. */
  timeline: 'daily' | 'snapshots';
  /** Users per variant at the end of each day, from the export's enrolment times (when it has them). */
  usersByDay?: ReadonlyArray<{ at: number; users: Readonly<Record<string, number>> }>;
}

export interface ReportOptions {
  source: string;
  generatedAt: number;
  /** Overrides the experiment's recorded method. */
  method?: AnalysisMethod;
  primaryMetric?: MetricName;
  /** 'daily' when the snapshots are the days of one export (timeline.ts); default 'snapshots'. */
  timeline?: 'daily' | 'snapshots';
  usersByDay?: ReportModel['usersByDay'];
}

/** Analyses every snapshot (sorted by time) and judges the gates of the latest; throws without a snapshot. */
export function buildReportModel(design: ReportDesign, snapshots: readonly ReportSnapshot[], options: ReportOptions): ReportModel {
  const sorted = [...snapshots].sort((a, b) => a.at - b.at);
  const last = sorted[sorted.length - 1];
  if (last === undefined) throw new Error('a report needs at least one snapshot of the data');
  const fromDesign = design.primary_metric;
  const primaryMetric = options.primaryMetric ?? (isMetricName(fromDesign) ? fromDesign : undefined);
  const analysisOptions = {
    ...(primaryMetric === undefined ? {} : { primaryMetric }),
    ...(options.method === undefined ? {} : { method: options.method }),
  };
  const analyses = sorted.map((s) => ({ at: s.at, analysis: analyzeExperiment(design, s.accumulators, analysisOptions) }));
  const latest = (analyses[analyses.length - 1] as { analysis: AnalysisResult }).analysis;
  return {
    design,
    source: options.source,
    generatedAt: options.generatedAt,
    method: latest.analysis_method,
    primaryMetric: latest.primary_metric,
    metrics: [
      latest.primary_metric,
      ...latest.guardrail_metrics.filter((m) => m !== latest.primary_metric),
      ...METRIC_NAMES.filter((m) => m !== latest.primary_metric && !latest.guardrail_metrics.includes(m)),
    ],
    control: latest.control,
    treatments: design.variants.filter((v) => !v.is_control).map((v) => v.name),
    analyses,
    latest,
    gates: reportGates(design, last.accumulators, last.performance),
    timeline: options.timeline ?? 'snapshots',
    ...(options.usersByDay === undefined ? {} : { usersByDay: options.usersByDay }),
  };
}

/** Every variant against every gate by the experiment's rule (default bounds), as GET …/gates judges them. */
export function reportGates(
  design: ReportDesign,
  accumulators: ReadonlyMap<string, VariantAccumulator>,
  performance: readonly GatePerformanceRecord[],
): ReportGates {
  const names = design.variants.map((v) => v.name);
  const inputs = gateInputsFromData(names, accumulators, performance, gateInputOptionsFor(design));
  const srm = sampleRatioMismatch(
    inputs.map((i) => i.users),
    design.variants.map((v) => v.traffic_allocation),
  );
  const rule = isGateRule(design.gate_rule) ? design.gate_rule : DEFAULT_GATE_RULE;
  const evaluation = evaluateGates({
    variants: inputs,
    minimumSampleSize: design.minimum_sample_size,
    thresholds: design.gates,
    srm,
    rule,
  });
  return {
    verdict: evaluation.verdict,
    rule,
    srm,
    thresholds: resolveThresholds(design.gates),
    variants: design.variants.map((v, i) => {
      const { verdict, results } = variantGates(evaluation, v.name);
      return { name: v.name, is_control: v.is_control, users: inputs[i]?.users ?? 0, verdict, gates: results };
    }),
  };
}

/**
 * Per treatment, the difference (treatment − control) of `metric` at each snapshot with the
 * interval of the snapshot's analysis (ci_low/ci_high: the confidence sequence when sequential).
 */
export function liftSeries(model: ReportModel, metric: MetricName): ChartSeries[] {
  return model.treatments.map((treatment) => ({
    name: `${treatment} − ${model.control}`,
    points: model.analyses.map(({ at, analysis }) => {
      const row = analysis.comparisons.find((c) => c.metric === metric && c.variant === treatment);
      return { x: at, y: row?.difference ?? null, low: row?.ci_low ?? null, high: row?.ci_high ?? null };
    }),
  }));
}

/** Users per variant by day (from enrolment times) when known, else at each snapshot. */
export function usersSeries(model: ReportModel): ChartSeries[] {
  const byDay = model.usersByDay;
  if (byDay !== undefined && byDay.length > 0)
    return model.design.variants.map((v) => ({ name: v.name, points: byDay.map(({ at, users }) => ({ x: at, y: users[v.name] ?? 0 })) }));
  return model.design.variants.map((v) => ({
    name: v.name,
    points: model.analyses.map(({ at, analysis }) => ({ x: at, y: analysis.sample_sizes[v.name] ?? 0 })),
  }));
}

/** What the report plots over time, given every export read (each a snapshot with its timeline). */
export interface PlottedTime {
  snapshots: ReportSnapshot[];
  timeline: 'daily' | 'snapshots';
  usersByDay?: NonNullable<ExportTimeline['usersByDay']>;
}

/**
 * The latest export's days when it has per-day counts (its last day carries the export's own data,
 * so the gates judge exactly the export); otherwise one point per export, with users by day from the
 * latest export's enrolment times when it has them.
 */
export function plottedTime(exports: ReadonlyArray<{ snapshot: ReportSnapshot; timeline: ExportTimeline }>): PlottedTime {
  const latest = exports.reduce((a, b) => (b.snapshot.at >= a.snapshot.at ? b : a));
  const daily = latest.timeline.daily;
  if (daily !== undefined && daily.length > 0) {
    const days = daily.map((d): ReportSnapshot => ({ at: d.at, accumulators: d.accumulators, performance: [] }));
    const last = days.length - 1;
    days[last] = { ...latest.snapshot, at: (days[last] as ReportSnapshot).at };
    return { snapshots: days, timeline: 'daily' };
  }
  const usersByDay = latest.timeline.usersByDay;
  return { snapshots: exports.map((e) => e.snapshot), timeline: 'snapshots', ...(usersByDay === undefined ? {} : { usersByDay }) };
}

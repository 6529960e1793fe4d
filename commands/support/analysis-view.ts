/** Human output of `experiment analyze`: sample sizes, SRM, and a table per metric. */
import type { AnalysisResult, Comparison } from '../../src/experiments/stats/analysis.js';
import { METRIC_NAMES, type MetricName } from '../../src/experiments/metrics.js';
import { formatInterval, formatP, formatPercent, formatValue } from './format.js';
import { colours, formatCount, renderTable } from './output.js';

/** Metrics where a lower value is the better one. */
const LOWER_IS_BETTER: ReadonlySet<MetricName> = new Set(['bounce_rate']);

/** What the report is about, for its first line. */
export interface AnalysisContext {
  title: string;
  allocations: Record<string, number>;
}

/** The whole report as text. */
export function renderAnalysis(result: AnalysisResult, context: AnalysisContext): string {
  const c = colours();
  const total = Object.values(result.sample_sizes).reduce((a, b) => a + b, 0);
  const parts = [
    c.bold(context.title),
    `${formatCount(total)} users; control ${c.bold(result.control)}; confidence ${result.confidence_level}; primary metric ${result.primary_metric}`,
    '',
  ];
  parts.push(renderSampleSizes(result, context, total), '', ...srmLines(result), '');
  if (result.underpowered) {
    parts.push(
      c.yellow(
        `Underpowered: ${result.underpowered_variants.join(', ')} below minimum_sample_size ${result.minimum_sample_size}; nothing is called significant.`,
      ),
      '',
    );
  } else if (new Set(result.comparisons.map((row) => row.variant)).size > 1) {
    parts.push(c.dim('Intervals are Holm-adjusted like the p-values: one excludes 0 exactly when its verdict is significant.'), '');
  }
  const order = [result.primary_metric, ...METRIC_NAMES.filter((m) => m !== result.primary_metric)];
  for (const metric of order) {
    const rows = result.comparisons.filter((comparison) => comparison.metric === metric);
    parts.push(c.bold(`${metric} (${result.metric_roles[metric]})`), renderMetric(rows, result), ...cupedLines(rows), '');
  }
  return parts.join('\n');
}

function renderSampleSizes(result: AnalysisResult, context: AnalysisContext, total: number): string {
  const rows = Object.entries(result.sample_sizes).map(([variant, users]) => [
    variant === result.control ? `${variant} (control)` : variant,
    formatCount(users),
    total > 0 ? formatPercent(users / total, false, 1) : '—',
    context.allocations[variant] === undefined ? '—' : `${context.allocations[variant]}%`,
  ]);
  return renderTable(['variant', 'users', 'share', 'allocation'], rows);
}

/** The SRM verdict: one quiet line when fine, a loud block when the split is wrong. */
export function srmLines(result: Pick<AnalysisResult, 'srm'>): string[] {
  const c = colours();
  const { chi_square: chi, p_value: p, mismatch } = result.srm;
  if (chi === null || p === null) return [c.dim('Sample ratio: no users yet.')];
  if (!mismatch) return [`Sample ratio: OK (chi-square ${chi.toFixed(2)}, p = ${formatP(p)})`];
  return [
    c.bgRed.white.bold(' SAMPLE RATIO MISMATCH '),
    c.red.bold(`Users are not split as the allocations say (chi-square ${chi.toFixed(2)}, p = ${formatP(p)} < 0.001).`),
    c.red('Assignment or logging is broken: do not trust these results until the cause is found.'),
  ];
}

/**
 * The interval column shows the Holm-adjusted interval, which agrees with the verdict; with
 * one treatment it is the unadjusted one. Underpowered results have no adjusted interval (no
 * decision is made), so the column then shows the unadjusted interval and says so. A
 * sequential result's interval is a confidence sequence (CS), valid at every read.
 */
function renderMetric(rows: Comparison[], result: AnalysisResult): string {
  const several = rows.length > 1;
  const note = !several ? '' : result.underpowered ? ', unadjusted' : ', Holm-adj.';
  const kind = result.analysis_method === 'sequential' ? 'CS' : 'CI';
  const level = `${Math.round(result.confidence_level * 1000) / 10}% ${kind} (diff${note})`;
  const body = rows.map((row) => [
    row.variant,
    formatValue(row.control_value),
    formatValue(row.variant_value),
    formatPercent(row.effect_size, true),
    result.underpowered ? formatInterval(row.ci_low, row.ci_high) : formatInterval(row.adjusted_ci_low, row.adjusted_ci_high),
    formatP(row.adjusted_p_value),
    verdict(row, result),
  ]);
  return renderTable(
    ['variant', `control (${rows[0]?.control ?? result.control})`, 'variant value', 'lift', level, 'adj. p', 'verdict'],
    body,
  );
}

/**
 * One line per comparison with a CUPED adjustment (cuped.ts): its difference, unadjusted
 * interval and p, and the share of variance the covariate removed. Not Holm-adjusted; the
 * verdict above stays the unadjusted one.
 */
function cupedLines(rows: readonly Comparison[]): string[] {
  const c = colours();
  return rows.flatMap((row) => {
    const cuped = row.cuped;
    if (cuped === undefined) return [];
    return [
      c.dim(
        `CUPED on ${cuped.covariate} (${row.variant}): diff ${formatValue(cuped.difference)}, CI ${formatInterval(cuped.ci_low, cuped.ci_high)}, p = ${formatP(cuped.p_value)}, variance ${formatPercent(cuped.variance_reduction === null ? null : -cuped.variance_reduction, true, 1)}`,
      ),
    ];
  });
}

function verdict(row: Comparison, result: AnalysisResult): string {
  const c = colours();
  if (row.p_value === null) return c.dim('no data');
  if (result.underpowered) return c.yellow('underpowered');
  if (!row.significant) return c.dim('not significant');
  const up = (row.difference ?? 0) > 0;
  const better = LOWER_IS_BETTER.has(row.metric) ? !up : up;
  return better ? c.green(`better ${up ? '↑' : '↓'}`) : c.red(`worse ${up ? '↑' : '↓'}`);
}

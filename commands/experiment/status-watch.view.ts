/** One frame of `experiment status --watch`: users per variant and the primary lift, each with a sparkline of recent refreshes. */
import type { AnalysisResult } from '../../src/experiments/stats/analysis.js';
import type { ExperimentStatusReport } from '../../src/experiments/experiment-response.schema.js';
import { sparkline } from '../../src/experiments/report/sparkline.js';
import { formatInterval, formatP, formatPercent } from '../support/format.js';
import { colours, formatCount, renderTable } from '../support/output.js';

/** One refresh's data. */
export interface WatchSample {
  at: Date;
  status: ExperimentStatusReport;
  analysis: AnalysisResult;
}

/** Refreshes kept for the sparklines. */
export const WATCH_HISTORY = 30;

export interface FrameContext {
  intervalSeconds: number;
  /** The last refresh failed with this message (the frame shows the last good data). */
  error?: string;
  /** Why the next refresh comes later than the interval (the server's rate limit, its Retry-After). */
  wait?: string;
}

const time = (at: Date): string => at.toISOString().slice(11, 19);

function primaryLines(history: readonly WatchSample[]): string[] {
  const latest = history[history.length - 1] as WatchSample;
  const { analysis } = latest;
  const c = colours();
  return analysis.comparisons
    .filter((row) => row.metric === analysis.primary_metric)
    .map((row) => {
      const trend = history.map(
        (s) => s.analysis.comparisons.find((r) => r.metric === row.metric && r.variant === row.variant)?.difference ?? null,
      );
      const verdict = analysis.underpowered ? c.yellow('underpowered') : row.significant ? c.green('significant') : 'not significant';
      const interval = formatInterval(row.ci_low, row.ci_high);
      return `${analysis.primary_metric} ${row.variant} vs ${row.control}: ${formatPercent(row.effect_size, true)}, difference ${interval}, p = ${formatP(row.adjusted_p_value)}: ${verdict}  ${sparkline(trend)}`;
    });
}

/** The frame for the latest sample, with sparklines over the whole history (oldest first). */
export function renderWatchFrame(history: readonly WatchSample[], context: FrameContext): string {
  const latest = history[history.length - 1];
  if (latest === undefined) return '';
  const c = colours();
  const { status, analysis } = latest;
  const rows = status.variants.map((v) => [
    v.blocked ? `${v.name} (blocked)` : v.name,
    formatCount(v.users_assigned),
    formatPercent(v.share, false, 1),
    `${v.traffic_allocation}%`,
    sparkline(history.map((s) => s.status.variants.find((x) => x.name === v.name)?.users_assigned ?? null)),
  ]);
  const srm = status.srm.mismatch
    ? c.red.bold(`SAMPLE RATIO MISMATCH (p = ${status.srm.p_value?.toExponential(2)})`)
    : `Sample ratio: OK${status.srm.p_value === null ? '' : ` (p = ${formatP(status.srm.p_value)})`}`;
  return [
    `${c.bold(`Experiment ${status.id} "${status.name}"`)}: ${status.status} — ${time(latest.at)} UTC, every ${context.intervalSeconds} s, ${history.length} refreshes (Ctrl-C to stop)`,
    renderTable(['variant', 'users', 'share', 'allocation', 'users over time'], rows),
    `Method: ${analysis.analysis_method}`,
    ...primaryLines(history),
    srm,
    ...(context.error === undefined ? [] : [c.yellow(`last refresh failed: ${context.error}`)]),
    ...(context.wait === undefined ? [] : [c.yellow(context.wait)]),
  ].join('\n');
}

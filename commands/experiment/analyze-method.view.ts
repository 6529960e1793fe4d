/** The lines saying which analysis method a result used, and the primary metric's verdicts (status, analyze). */
import type { AnalysisResult } from '../../src/experiments/stats/analysis.js';
import type { AnalysisMethod } from '../../src/experiments/stats/sequential.js';
import { formatInterval, formatP, formatPercent } from '../support/format.js';
import { colours, formatCount } from '../support/output.js';

/** What a method promises, in a few words. */
export function methodDescription(method: AnalysisMethod): string {
  return method === 'sequential'
    ? 'always-valid p-values and confidence sequences by mixture SPRT, valid at every read'
    : 'fixed horizon: p-values and intervals valid for one planned read only';
}

/** One line naming the method a result used (and its tuning, n* counted in `unit`), for the terminal. */
export function methodLine(result: Pick<AnalysisResult, 'analysis_method' | 'sequential_tuning'>, unit = 'users'): string {
  const tuning = result.sequential_tuning;
  const detail =
    tuning === null ? '' : `; rho^2 = ${tuning.rho_squared.toPrecision(3)}, tightest at ${formatCount(tuning.target_sample_size)} ${unit}`;
  return `Method: ${result.analysis_method} (${methodDescription(result.analysis_method)}${detail})`;
}

/** Per treatment, the primary metric's verdict in one line: lift, interval of the difference, p. */
export function primaryVerdictLines(result: AnalysisResult): string[] {
  const c = colours();
  return result.comparisons
    .filter((row) => row.metric === result.primary_metric)
    .map((row) => {
      const verdict = result.underpowered ? c.yellow('underpowered') : row.significant ? c.green('significant') : 'not significant';
      const lift = row.effect_size === null ? '—' : formatPercent(row.effect_size, true);
      const interval = formatInterval(row.adjusted_ci_low ?? row.ci_low, row.adjusted_ci_high ?? row.ci_high);
      return `${result.primary_metric} ${row.variant} vs ${row.control}: ${lift}, difference ${interval}, p = ${formatP(row.adjusted_p_value)}: ${verdict}`;
    });
}

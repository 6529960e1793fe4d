/**
 * The metric roles in the terminal (status, analyze): the decision line drawn from the primary
 * metric alone, a table with each metric's role and its own test (primary: two-sided, Holm over
 * treatments; guardrail: one-sided for harm, Holm over the guardrail family; exploratory: shown,
 * deciding nothing), and the per-instance breakdown.
 */
import type { AnalysisResult, VariantDecision } from '../../src/experiments/stats/analysis.js';
import type { GuardrailResult } from '../../src/experiments/stats/guardrails.js';
import { METRIC_NAMES } from '../../src/experiments/metrics.js';
import { formatInterval, formatP, formatPercent, formatValue } from '../support/format.js';
import { colours, formatCount, renderTable } from '../support/output.js';

const OUTCOME_WORDS: Record<VariantDecision['outcome'], string> = {
  better: 'better',
  worse: 'worse',
  not_significant: 'no significant difference',
  underpowered: 'underpowered: no decision yet',
  no_data: 'no data yet',
};

/** One line per treatment: "Decision (primary metric ctr): treatment better (+12.0%, p = 0.003); guardrails: no harm detected". */
export function decisionLines(result: AnalysisResult): string[] {
  const c = colours();
  return result.decision.variants.map((d) => {
    const row = result.comparisons.find((x) => x.metric === result.decision.metric && x.variant === d.variant);
    const detail =
      row === undefined || row.p_value === null ? '' : ` (${formatPercent(row.effect_size, true)}, p = ${formatP(row.adjusted_p_value)})`;
    const word = OUTCOME_WORDS[d.outcome];
    const coloured = d.outcome === 'better' ? c.green(word) : d.outcome === 'worse' ? c.red(word) : word;
    const guardrails =
      result.guardrail_metrics.length === 0
        ? 'no guardrails'
        : d.guardrails_harmed.length > 0
          ? c.red(`guardrail harm: ${d.guardrails_harmed.join(', ')}`)
          : 'guardrails: no harm detected';
    return `Decision (primary metric ${result.decision.metric}): ${d.variant} ${coloured}${detail}; ${guardrails}`;
  });
}

/** Per treatment: which guardrails flagged harm (status prints it under the primary metric's verdict). */
export function guardrailLines(result: AnalysisResult): string[] {
  const c = colours();
  if (result.guardrail_metrics.length === 0) return [];
  const tested = `${result.guardrail_metrics.join(', ')}; one-sided, Holm-corrected`;
  return result.decision.variants.map((d) =>
    d.guardrails_harmed.length > 0
      ? c.red(`guardrails ${d.variant} vs ${result.control}: HARM on ${d.guardrails_harmed.join(', ')} (${tested})`)
      : `guardrails ${d.variant} vs ${result.control}: no harm detected (${tested})`,
  );
}

function guardrailCells(g: GuardrailResult): string[] {
  const c = colours();
  const side = g.harm_direction === 'increase' ? 'lower bound' : 'upper bound';
  const verdict = g.p_value === null ? c.dim('no data') : g.harm_detected ? c.red('HARM') : 'no harm detected';
  return [`harm = ${g.harm_direction}, 1-sided Holm p = ${formatP(g.adjusted_p_value)}, ${side} ${formatValue(g.harm_bound)}`, verdict];
}

/** Every metric × treatment with its role, difference and the test its role calls for. */
export function rolesTable(result: AnalysisResult): string {
  const c = colours();
  const order = [...METRIC_NAMES].sort((a, b) => rank(result, a) - rank(result, b));
  const rows = order.flatMap((metric) =>
    result.comparisons
      .filter((row) => row.metric === metric)
      .map((row) => {
        const difference = `${formatValue(row.difference)} ${formatInterval(row.ci_low, row.ci_high)}`;
        if (row.role === 'guardrail') {
          const g = result.guardrails.find((x) => x.metric === metric && x.variant === row.variant);
          return [metric, 'guardrail', row.variant, difference, ...(g === undefined ? ['—', '—'] : guardrailCells(g))];
        }
        const test = `2-sided, adj. p = ${formatP(row.adjusted_p_value)}`;
        const verdict = row.role === 'primary' ? (row.significant ? c.bold('significant') : 'not significant') : c.dim('exploratory');
        return [metric, row.role, row.variant, difference, test, verdict];
      }),
  );
  return renderTable(['metric', 'role', 'variant', 'difference (CI)', 'test', 'verdict'], rows);
}

function rank(result: AnalysisResult, metric: (typeof METRIC_NAMES)[number]): number {
  const role = result.metric_roles[metric];
  return role === 'primary' ? 0 : role === 'guardrail' ? 1 : 2;
}

/** Users per variant, the per-instance SRM p and the primary metric per variant, one row per instance. */
export function instanceTable(result: AnalysisResult): string {
  const c = colours();
  const rows = result.by_instance ?? [];
  if (rows.length === 0) return c.dim('By instance: no instance data (an export from before instances were recorded).');
  const variants = Object.keys(result.sample_sizes);
  const body = rows.map((row) => [
    row.instance,
    formatCount(row.users),
    ...variants.map((v) => formatCount(row.sample_sizes[v] ?? 0)),
    row.srm === null
      ? c.dim('too few users')
      : row.srm.mismatch
        ? c.red(`MISMATCH p = ${formatP(row.srm.p_value)}`)
        : `p = ${formatP(row.srm.p_value)}`,
    ...variants.map((v) => formatValue(row.metrics[v]?.[result.primary_metric] ?? null)),
  ]);
  return renderTable(
    ['instance', 'users', ...variants.map((v) => `${v} users`), 'SRM', ...variants.map((v) => `${result.primary_metric} (${v})`)],
    body,
  );
}

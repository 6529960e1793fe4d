/**
 * The evaluation as text for CI: a Markdown summary (GitHub's step summary) and JUnit XML
 * (one test case per candidate × group × baseline of the gate). Pure: the caller writes them.
 */
import { escapeMarkdown, STEP_SUMMARY_MAX_BYTES } from '../experiments/gates/gate-summary-md.js';
import type { EvalGate } from './eval-gate.js';
import type { Evaluation } from './evaluate.js';
import { EVAL_METRICS } from './metrics.js';
import { TREND_METRICS, type TrendsEvaluation } from './trends-eval.js';

export { STEP_SUMMARY_MAX_BYTES };

export const GROUP_TITLE = { with_history: 'Users with history', without_history: 'Users without history', all: 'All users' } as const;

/** After a group's title: how many of its users without history are returning users of a bounded read (none: nothing). */
export function returningNote(evaluation: Evaluation, group: keyof typeof GROUP_TITLE): string {
  const n = evaluation.data.returning_without_history;
  return group === 'without_history' && n > 0 ? `, of them ${n} returning from before the data read (not newcomers)` : '';
}
const MARK = { pass: '✅ pass', fail: '❌ fail', inconclusive: '⚠️ inconclusive' } as const;

/** A number as the tables show it: 3 decimals (novelty, in bits, 2). */
export function formatMetric(x: number, metric?: string): string {
  return Number.isFinite(x) ? x.toFixed(metric === 'novelty' ? 2 : 3) : '—';
}

/** `0.123 [0.100, 0.150]`. */
export function formatEstimate(e: { value: number; ci_low: number; ci_high: number }, metric?: string): string {
  return `${formatMetric(e.value, metric)} [${formatMetric(e.ci_low, metric)}, ${formatMetric(e.ci_high, metric)}]`;
}

/** The Markdown summary: a table per user group, then the gate's comparisons; cut to `budget` bytes. */
export function evalSummaryMarkdown(
  evaluation: Evaluation,
  gate: EvalGate | undefined,
  source: string,
  budget = STEP_SUMMARY_MAX_BYTES,
): string {
  const k = evaluation.k;
  const lines = [
    `## recsvc eval${gate === undefined ? '' : `: ${MARK[gate.verdict]}`}`,
    '',
    `${escapeMarkdown(source)} · cutoff ${evaluation.cutoff} · ${evaluation.data.evaluated_users} test users · K = ${k} · ${Math.round(evaluation.confidence * 100)}% bootstrap intervals (${evaluation.samples} resamples, seed ${evaluation.seed})`,
  ];
  for (const group of evaluation.groups) {
    if (group.group === 'all') continue;
    lines.push('', `### ${GROUP_TITLE[group.group]} (${group.users})${returningNote(evaluation, group.group)}`, '');
    if (group.users === 0) {
      lines.push('No test users in this group.');
      continue;
    }
    lines.push(`| ranker | ${EVAL_METRICS.map((m) => `${m}@${k}`).join(' | ')} |`, `|---|${EVAL_METRICS.map(() => '---').join('|')}|`);
    for (const r of group.rankers) {
      const name = r.kind === 'candidate' ? `**${escapeMarkdown(r.name)}**` : escapeMarkdown(r.name);
      lines.push(`| ${name} | ${EVAL_METRICS.map((m) => formatEstimate(r.metrics[m], m)).join(' | ')} |`);
    }
  }
  if (gate !== undefined) {
    lines.push(
      '',
      `### Gate: ${gate.metric}@${k} at least every baseline's (margin ${gate.margin})`,
      '',
      '| candidate | users | baseline | difference | verdict |',
      '|---|---|---|---|---|',
    );
    for (const c of gate.cases) {
      const reason = c.reason === undefined ? '' : ` (${c.reason})`;
      lines.push(
        `| ${escapeMarkdown(c.candidate)} | ${c.group.replace('_', ' ')} | ${escapeMarkdown(c.baseline)} | ${formatEstimate({ value: c.difference, ci_low: c.ci_low, ci_high: c.ci_high })} | ${MARK[c.verdict]}${reason} |`,
      );
    }
  }
  let text = `${lines.join('\n')}\n`;
  while (Buffer.byteLength(text) > budget && lines.length > 4) {
    lines.splice(lines.length - 2, 1);
    text = `${lines.join('\n')}\n\n_Rows left out: the summary must stay under ${budget} bytes._\n`;
  }
  return text;
}

const xml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/** JUnit XML: a failing comparison is a <failure>, an inconclusive one <skipped>. */
export function evalJunitXml(gate: EvalGate, now = new Date()): string {
  const cases = gate.cases.map((c) => {
    const name = xml(`${c.candidate} vs ${c.baseline} (${c.group.replace('_', ' ')})`);
    const message = xml(
      `${gate.metric} difference ${formatEstimate({ value: c.difference, ci_low: c.ci_low, ci_high: c.ci_high })}, ${c.users} users, margin ${gate.margin}`,
    );
    const open = `    <testcase classname="recsvc.eval.${xml(c.candidate)}" name="${name}" time="0"`;
    if (c.verdict === 'fail')
      return `${open}>\n      <failure type="WorseThanBaseline" message="${message}">${message}</failure>\n    </testcase>`;
    if (c.verdict === 'inconclusive')
      return `${open}>\n      <skipped message="${xml(c.reason ?? 'inconclusive')}: ${message}"/>\n    </testcase>`;
    return `${open}/>`;
  });
  const failures = gate.cases.filter((c) => c.verdict === 'fail').length;
  const skipped = gate.cases.filter((c) => c.verdict === 'inconclusive').length;
  const totals = `tests="${gate.cases.length}" failures="${failures}" errors="0" skipped="${skipped}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="recsvc eval" ${totals} time="0">`,
    `  <testsuite name="recsvc.eval" ${totals} timestamp="${now.toISOString().slice(0, 19)}" time="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** The trends evaluation (`recsvc eval --trends`) as a Markdown table. */
export function trendsSummaryMarkdown(trends: TrendsEvaluation, source: string): string {
  const k = trends.k;
  return [
    '## recsvc eval --trends: FASP trends vs fediscoverer',
    '',
    `${escapeMarkdown(source)} · ${trends.instants} instants every ${trends.step_hours} h from ${trends.from} · withinLastHours ${trends.within_last_hours} · target: distinct engagers in the next ${trends.horizon_hours} h · ${Math.round(trends.confidence * 100)}% bootstrap intervals over instants (${trends.samples} resamples, seed ${trends.seed})`,
    '',
    `| ranker | nDCG@${k} | Spearman |`,
    '|---|---|---|',
    ...trends.rankers.map((r) => `| ${r.name} | ${TREND_METRICS.map((m) => formatEstimate(r.metrics[m])).join(' | ')} |`),
    `| **recsvc − fediscoverer** | ${TREND_METRICS.map((m) => formatEstimate(trends.difference[m])).join(' | ')} |`,
    '',
  ].join('\n');
}

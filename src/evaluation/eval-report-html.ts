/**
 * The evaluation as one self-contained HTML page, built like the experiment report (its style
 * sheet and Content-Security-Policy: nothing loads, nothing runs): per user group a chart of
 * nDCG@K with intervals, a table of every metric, the paired differences of each candidate,
 * and the gate when one was asked for. Pure: the caller writes the file.
 */
import { escapeHtml } from '../experiments/report/escape.js';
import { REPORT_STYLE, reportCsp } from '../experiments/report/report-html.js';
import type { EvalGate } from './eval-gate.js';
import { formatEstimate } from './eval-text.js';
import type { Evaluation, GroupResult } from './evaluate.js';
import { intervalChart } from './interval-chart.js';
import { EVAL_METRICS } from './metrics.js';
import type { TunedVariant } from './tune.js';

const GROUP_TITLE = { with_history: 'Users with history', without_history: 'Users without history', all: 'All users' } as const;

function table(head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('');
  return `<table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`;
}

function groupSection(group: GroupResult, k: number): string {
  if (group.users === 0)
    return `<section data-group="${group.group}"><h2>${GROUP_TITLE[group.group]}</h2><p class="meta">No test users in this group.</p></section>`;
  const chart = intervalChart(
    `nDCG@${k}, ${group.users} users`,
    group.rankers.map((r) => ({
      label: r.name,
      value: r.metrics.ndcg.value,
      low: r.metrics.ndcg.ci_low,
      high: r.metrics.ndcg.ci_high,
      highlight: r.kind === 'candidate',
    })),
  );
  const metrics = table(
    ['ranker', ...EVAL_METRICS.map((m) => `${m}@${k}`)],
    group.rankers.map((r) => [
      escapeHtml(r.kind === 'candidate' ? `${r.name} (candidate)` : r.name),
      ...EVAL_METRICS.map((m) => escapeHtml(formatEstimate(r.metrics[m], m))),
    ]),
  );
  const ndcg = group.comparisons.filter((c) => c.metric === 'ndcg');
  const differences =
    ndcg.length === 0
      ? ''
      : `<h3>Paired differences, nDCG@${k}</h3>${intervalChart(
          'candidate − other, nDCG',
          ndcg.map((c) => ({
            label: `${c.candidate} − ${c.against}`,
            value: c.value,
            low: c.ci_low,
            high: c.ci_high,
            highlight: c.ci_low > 0,
          })),
          0,
        )}${table(
          ['candidate', 'against', ...EVAL_METRICS],
          [...new Set(group.comparisons.map((c) => `${c.candidate}\u0000${c.against}`))].map((key) => {
            const [candidate, against] = key.split('\u0000') as [string, string];
            return [
              escapeHtml(candidate),
              escapeHtml(against),
              ...EVAL_METRICS.map((m) => {
                const c = group.comparisons.find((x) => x.candidate === candidate && x.against === against && x.metric === m);
                return c === undefined ? '—' : escapeHtml(formatEstimate(c, m));
              }),
            ];
          }),
        )}`;
  return `<section data-group="${group.group}"><h2>${escapeHtml(`${GROUP_TITLE[group.group]} (${group.users})`)}</h2>${chart}${metrics}${differences}</section>`;
}

function gateSection(gate: EvalGate): string {
  const rows = gate.cases.map((c) => [
    escapeHtml(c.candidate),
    escapeHtml(c.group.replace('_', ' ')),
    escapeHtml(c.baseline),
    escapeHtml(formatEstimate({ value: c.difference, ci_low: c.ci_low, ci_high: c.ci_high })),
    `<span class="${c.verdict}">${escapeHtml(c.verdict)}</span>${c.reason === undefined ? '' : escapeHtml(` (${c.reason})`)}`,
  ]);
  return `<section id="gate"><h2>Gate: <span class="${gate.verdict}">${escapeHtml(gate.verdict)}</span></h2><p class="meta">${escapeHtml(`Each candidate's ${gate.metric} minus each baseline's, per user group: pass when the interval's low end is at least −${gate.margin}, fail when its high end is below it; groups under ${gate.min_users} users are inconclusive.`)}</p>${table(['candidate', 'users', 'baseline', 'difference', 'verdict'], rows)}</section>`;
}

function tunedSection(tuned: TunedVariant): string {
  return `<section id="tuned"><h2>Tuned variant</h2><p class="meta">${escapeHtml(tuned.description)}</p><pre>${escapeHtml(JSON.stringify(tuned.variant, null, 2))}</pre></section>`;
}

/** The whole page. */
export function renderEvalHtml(
  evaluation: Evaluation,
  meta: { source: string; generatedAt: number },
  gate?: EvalGate,
  tuned?: TunedVariant,
): string {
  const d = evaluation.data;
  const facts = [
    `cutoff ${evaluation.cutoff}`,
    `${d.evaluated_users} test users${d.returning_without_history > 0 ? ` (${d.returning_without_history} without history returning from before the data read)` : ''}`,
    `${d.posts} posts, ${d.interactions} interactions (${d.train_interactions} before the cutoff)`,
    `pool ${d.pool} of a catalogue of ${d.catalogue}`,
    `K = ${evaluation.k}`,
    `${Math.round(evaluation.confidence * 100)}% per-user bootstrap intervals (${evaluation.samples} resamples, seed ${evaluation.seed})`,
  ];
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(reportCsp())}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer"><title>recsvc eval</title>',
    `<style>${REPORT_STYLE}</style></head><body>`,
    '<h1>Offline evaluation</h1>',
    `<p class="meta">${escapeHtml(facts.join(' · '))}</p>`,
    `<p class="meta">${escapeHtml(`Source: ${meta.source} · generated ${new Date(meta.generatedAt).toISOString()}`)}</p>`,
    gate === undefined ? '' : gateSection(gate),
    tuned === undefined ? '' : tunedSection(tuned),
    ...evaluation.groups.filter((g) => g.group !== 'all').map((g) => groupSection(g, evaluation.k)),
    '</body></html>',
    '',
  ].join('\n');
}

/**
 * The experiment report as one self-contained HTML document: inline SVG charts and one inline
 * style sheet (a phone scrolls wide tables inside their box, never the page), no script, nothing fetched at view time — the Content-Security-Policy meta tag
 * forbids everything but that style sheet (allowed by its hash). Every string from the data
 * (experiment, variant names) is escaped. Pure: the caller writes the file.
 */
import { createHash } from 'node:crypto';
import type { MetricName } from '../metrics.js';
import { escapeHtml } from './escape.js';
import { liftSeries, usersSeries, type ReportModel } from './report-model.js';
import { lineChart } from './svg-chart.js';

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d1d1f; margin: 24px auto; max-width: 980px; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; } .meta { color: #555; margin: 0 0 12px; } .note { background: #fff8e1; border-left: 4px solid #f5b400; padding: 6px 10px; margin: 8px 0; }
table { border-collapse: collapse; margin: 8px 0 16px; } th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; font-variant-numeric: tabular-nums; }
th { background: #f4f4f6; } .pass { color: #176f2c; font-weight: 600; } .fail { color: #b3261e; font-weight: 600; } .inconclusive { color: #8a6100; font-weight: 600; }
svg.chart { display: block; max-width: 100%; height: auto; font-size: 11px; } svg.chart text { fill: #333; } .srm-bad { color: #b3261e; font-weight: 700; }
table { display: block; max-width: 100%; overflow-x: auto; } h1, h2, h3, p { overflow-wrap: anywhere; }
@media (max-width: 600px) { body { margin: 12px auto; padding: 0 10px; font-size: 13px; } th, td { padding: 2px 5px; } }
`;

/** The report's style sheet, shared by the other self-contained reports (recsvc eval's). */
export { STYLE as REPORT_STYLE };

/** `sha256-…` of a text, as a CSP source expression. */
function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The page's policy: nothing loads, nothing runs; only the inline style sheet applies. */
export function reportCsp(style = STYLE): string {
  return `default-src 'none'; style-src ${cspHash(style)}; img-src 'none'; script-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'`;
}

/** UTC date and time of a snapshot, `2025-03-01 14:05`; only the date when every snapshot is at midnight. */
function timeFormatter(times: readonly number[]): (ms: number) => string {
  const midnight = times.every((t) => t % 86_400_000 === 0);
  return (ms) => {
    const iso = new Date(ms).toISOString();
    return midnight ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  };
}

function number(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined) return '—';
  if (value === 0) return '0';
  return Math.abs(value) < 1 ? value.toPrecision(digits) : value.toFixed(2);
}

function percent(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return `${value > 0 ? '+' : ''}${(value * 100).toFixed(2)}%`;
}

/** `[low, high]` in the table's number format; an unknown end is ∞ (p95 past the last bucket), no interval —. */
function interval(low: number | null | undefined, high: number | null | undefined): string {
  if (low === undefined && high === undefined) return '—';
  if ((low === null || low === undefined) && (high === null || high === undefined)) return '—';
  const end = (x: number | null | undefined) => (x === null || x === undefined ? '∞' : number(x));
  return `[${end(low)}, ${end(high)}]`;
}

function table(head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('');
  return `<table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`;
}

function verdictCell(verdict: string): string {
  return `<span class="${escapeHtml(verdict)}">${escapeHtml(verdict)}</span>`;
}

function header(model: ReportModel, format: (ms: number) => string): string {
  const d = model.design;
  const name = d.name === undefined ? '' : ` “${d.name}”`;
  const id = d.id === undefined ? 'Experiment' : `Experiment ${String(d.id)}`;
  const first = model.analyses[0]?.at ?? model.generatedAt;
  const last = model.analyses[model.analyses.length - 1]?.at ?? model.generatedAt;
  const unit = model.timeline === 'daily' ? 'days' : 'snapshots';
  const span =
    model.analyses.length === 1
      ? `1 snapshot (${format(last)} UTC)`
      : `${model.analyses.length} ${unit}, ${format(first)} to ${format(last)} UTC`;
  const meta = [
    d.status === undefined ? undefined : `status ${d.status}`,
    `method ${model.method}`,
    `confidence level ${d.confidence_level}`,
    `control ${model.control}`,
    `primary metric ${model.primaryMetric}`,
    span,
  ].filter((m): m is string => m !== undefined);
  return [
    `<h1>${escapeHtml(`${id}${name}`)}</h1>`,
    `<p class="meta">${escapeHtml(meta.join(' · '))}</p>`,
    `<p class="meta">${escapeHtml(`Source: ${model.source} · generated ${new Date(model.generatedAt).toISOString()}`)}</p>`,
  ].join('\n');
}

function notes(model: ReportModel): string {
  const lines: string[] = [];
  if (model.method === 'sequential')
    lines.push(
      'Intervals are confidence sequences (mixture SPRT): each is valid whenever it is read, so the whole band over time may be watched.',
    );
  else
    lines.push(
      'Fixed-horizon intervals: each is valid for one planned read only; stopping the first time a band excludes 0 inflates false positives.',
    );
  if (model.timeline === 'daily')
    lines.push('Daily points from the export: each day shows every user enrolled by its end, with their counts up to then (UTC days).');
  else if (model.usersByDay !== undefined)
    lines.push(
      "Users per variant by day from the export's enrolment times; the lift needs per-day counts in the export, so it has one point per export.",
    );
  if (model.analyses.length === 1)
    lines.push(
      'One snapshot: the charts show the data as of now. The lift over time needs several exports taken at different times (recsvc experiment report --file day1.jsonl --file day2.jsonl …).',
    );
  if (model.latest.underpowered)
    lines.push(
      `Underpowered: fewer than ${model.latest.minimum_sample_size} users in ${model.latest.underpowered_variants.join(', ')}; no result is significant yet.`,
    );
  return lines.map((line) => `<p class="note">${escapeHtml(line)}</p>`).join('\n');
}

function metricSection(model: ReportModel, metric: MetricName, format: (ms: number) => string): string {
  const role = ` (${model.latest.metric_roles[metric]})`;
  const chart = lineChart({
    title: `${metric}: difference vs ${model.control} over time, with its interval`,
    yLabel: `Δ ${metric}`,
    series: liftSeries(model, metric),
    formatX: format,
    zeroLine: true,
  });
  const rows = model.latest.comparisons
    .filter((c) => c.metric === metric)
    .map((c) => {
      const verdict = model.latest.underpowered ? 'underpowered' : c.significant ? 'significant' : 'not significant';
      return [
        escapeHtml(c.variant),
        number(c.control_value),
        number(c.variant_value),
        number(c.difference),
        interval(c.ci_low, c.ci_high),
        percent(c.effect_size),
        number(c.adjusted_p_value),
        escapeHtml(verdict),
      ];
    });
  const head = ['variant', `${model.control}`, 'variant value', 'difference', 'interval', 'lift', 'adjusted p', 'verdict'];
  return `<section class="metric" data-metric="${escapeHtml(metric)}"><h3>${escapeHtml(`${metric}${role}`)}</h3>${chart}${table(head, rows)}${guardrailLines(model, metric)}</section>`;
}

/** Under a guardrail's table: per treatment, whether its one-sided test found harm. */
function guardrailLines(model: ReportModel, metric: MetricName): string {
  return model.latest.guardrails
    .filter((g) => g.metric === metric)
    .map((g) => {
      const verdict = g.harm_detected ? 'harm detected' : 'no harm detected';
      const detail = `one-sided for ${g.harm_direction === 'increase' ? 'an increase' : 'a decrease'}, ${g.correction.charAt(0).toUpperCase()}${g.correction.slice(1)}-adjusted p = ${number(g.adjusted_p_value)}, harm bound ${number(g.harm_bound)}`;
      return `<p class="${g.harm_detected ? 'fail' : 'pass'}">${escapeHtml(`Guardrail, ${g.variant}: ${verdict} (${detail})`)}</p>`;
    })
    .join('');
}

/** The experiment's decision, from the primary metric alone, with the guardrails that flagged harm. */
function decisionLine(model: ReportModel): string {
  const outcomes = model.latest.decision.variants.map((v) => {
    const harmed = v.guardrails_harmed.length === 0 ? '' : `, harm on ${v.guardrails_harmed.join(', ')}`;
    return `${v.variant} ${v.outcome.replace('_', ' ')}${harmed}`;
  });
  return `<p class="decision">${escapeHtml(`Decision on ${model.latest.decision.metric}: ${outcomes.join('; ')}.`)}</p>`;
}

function usersSection(model: ReportModel, format: (ms: number) => string): string {
  const chart = lineChart({ title: 'Users per variant over time', yLabel: 'users', series: usersSeries(model), formatX: format });
  const rows = model.design.variants.map((v) => [
    escapeHtml(v.name),
    String(model.latest.sample_sizes[v.name] ?? 0),
    `${v.traffic_allocation}%`,
  ]);
  const srm = model.latest.srm;
  const srmLine = srm.mismatch
    ? `<p class="srm-bad">Sample ratio mismatch (p = ${escapeHtml(String(srm.p_value))}): users are not split as allocated; do not trust these results.</p>`
    : `<p>Sample ratio: OK${srm.p_value === null ? '' : ` (p = ${escapeHtml(number(srm.p_value))})`}.</p>`;
  return `<section id="users"><h2>Users per variant</h2>${chart}${table(['variant', 'users', 'allocation'], rows)}${srmLine}</section>`;
}

function gatesSection(model: ReportModel): string {
  const g = model.gates;
  const rows = g.variants.flatMap((v) =>
    v.gates.map((r) => [
      escapeHtml(v.is_control ? `${v.name} (control)` : v.name),
      escapeHtml(r.gate),
      number(r.value),
      interval(r.ci_low, r.ci_high),
      escapeHtml(`${r.comparator} ${r.threshold}`),
      verdictCell(r.verdict),
      escapeHtml(r.reason ?? ''),
    ]),
  );
  return [
    `<section id="gates"><h2>Gates: ${verdictCell(g.verdict)}</h2>`,
    `<p class="meta">${escapeHtml(`Rule ${g.rule}: a gate passes when ${g.rule === 'bounds' ? 'its whole interval clears' : 'its value meets'} the threshold; ${g.srm.mismatch ? 'the sample ratio mismatch fails the experiment' : 'sample ratio OK'}.`)}</p>`,
    table(['variant', 'gate', 'value', 'interval', 'threshold', 'verdict', 'reason'], rows),
    '</section>',
  ].join('\n');
}

/** The whole report page. */
export function renderReportHtml(model: ReportModel): string {
  const format = timeFormatter([...model.analyses.map((a) => a.at), ...(model.usersByDay ?? []).map((d) => d.at)]);
  const title = `${model.design.id === undefined ? 'Experiment' : `Experiment ${String(model.design.id)}`} report`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(reportCsp())}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    header(model, format),
    decisionLine(model),
    notes(model),
    `<h2>Lift over time</h2>`,
    ...model.metrics.map((metric) => metricSection(model, metric, format)),
    usersSection(model, format),
    gatesSection(model),
    '</body></html>',
    '',
  ].join('\n');
}

/**
 * The gates of an experiment as Markdown for a CI job's summary page (GitHub Actions'
 * `$GITHUB_STEP_SUMMARY`, GitHub-flavoured Markdown): a heading with the verdict, a line on the
 * sample ratio, and one table row per variant × gate with value, interval, threshold and verdict.
 * GitHub shows at most 1 MiB of a step's summary, so rows beyond a byte budget are left out with a
 * note saying how many. Pure: the caller writes the text.
 */
import { groupThousands } from '../../number-format.js';
import { formatInterval } from './gate-explain.js';
import { GATE_UNITS, type GateResult, type GateVerdict } from './gates.js';
import type { SrmResult } from '../stats/srm.js';

/** GitHub's limit on one step's summary. */
export const STEP_SUMMARY_MAX_BYTES = 1024 * 1024;

/** What `gates check` reports (commands/support/gates-report.ts has this shape). */
export interface GateSummaryInput {
  experiment_id: number | string | null;
  source: string;
  verdict: GateVerdict;
  srm: SrmResult;
  minimum_sample_size: number;
  variants: ReadonlyArray<{ name: string; is_control: boolean; users: number; verdict: GateVerdict; gates: readonly GateResult[] }>;
}

const MARK: Record<GateVerdict, string> = { pass: '✅ pass', fail: '❌ fail', inconclusive: '⚠️ inconclusive' };

/** Text from the data (variant names, paths) made inert in a GFM table cell: no markup, no HTML, no column break. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~#!]/g, (char) => `\\${char}`);
}

function value(x: number | null): string {
  return x === null ? '—' : String(Number(x.toPrecision(6)));
}

/** " ms" after a p95 figure; nothing after a rate. */
const unit = (result: GateResult): string => (GATE_UNITS[result.gate] === '' ? '' : ` ${GATE_UNITS[result.gate]}`);

function intervalCell(result: GateResult): string {
  if (result.ci_low === undefined && result.ci_high === undefined) return '—';
  const round = (x: number | null | undefined) => (x === null || x === undefined ? x : Number(x.toPrecision(6)));
  return `${formatInterval(round(result.ci_low), round(result.ci_high))}${unit(result)}`;
}

function row(variant: GateSummaryInput['variants'][number], result: GateResult): string {
  const name = escapeMarkdown(variant.is_control ? `${variant.name} (control)` : variant.name);
  const comparator = result.comparator === '<=' ? '≤' : '≥';
  const reason = result.reason === undefined ? '' : ` (${result.reason})`;
  const cells = [
    name,
    groupThousands(variant.users),
    result.gate,
    result.value === null ? value(null) : `${value(result.value)}${unit(result)}`,
    intervalCell(result),
    `${comparator} ${result.threshold}${unit(result)}`,
    `${MARK[result.verdict]}${reason}`,
  ];
  return `| ${cells.join(' | ')} |`;
}

function srmLine(srm: SrmResult): string {
  if (srm.p_value === null) return 'Sample ratio: no users yet.';
  const p = srm.p_value < 1e-4 ? srm.p_value.toExponential(1) : srm.p_value.toFixed(4);
  return srm.mismatch
    ? `❌ **Sample ratio mismatch** (chi-square ${srm.chi_square?.toFixed(2)}, p = ${p}): users are not split as allocated; this fails the experiment.`
    : `Sample ratio: OK (p = ${p}).`;
}

const byteLength = (text: string): number => new TextEncoder().encode(text).length;

/**
 * The summary of one experiment's gates, at most `maxBytes` bytes of UTF-8 (default: GitHub's
 * 1 MiB): rows that do not fit are replaced by a note naming how many were left out.
 */
export function gateSummaryMarkdown(report: GateSummaryInput, maxBytes = STEP_SUMMARY_MAX_BYTES): string {
  const name = report.experiment_id === null ? 'Gates' : `Gates: experiment ${report.experiment_id}`;
  const head = [
    `### ${MARK[report.verdict]} — ${escapeMarkdown(name)}`,
    '',
    `Source: ${escapeMarkdown(report.source)} · at least ${groupThousands(report.minimum_sample_size)} users per variant to decide`,
    '',
    srmLine(report.srm),
    '',
    '| variant | users | gate | value | interval | threshold | verdict |',
    '|---|---:|---|---:|---|---|---|',
  ].join('\n');
  const rows = report.variants.flatMap((variant) => variant.gates.map((result) => row(variant, result)));
  let text = `${head}\n`;
  let used = byteLength(text);
  for (const [i, line] of rows.entries()) {
    const size = byteLength(line) + 1;
    const left = rows.length - i;
    const note = `\n_${left} more ${left === 1 ? 'row' : 'rows'} left out: a step summary must stay under 1 MiB; the JUnit XML has every gate._\n`;
    const remaining = rows.length - i - 1;
    const reserve = remaining > 0 ? byteLength(note) + 8 : 0;
    if (used + size + reserve > maxBytes) {
      if (used + byteLength(note) <= maxBytes) text += note;
      return text;
    }
    text += `${line}\n`;
    used += size;
  }
  return text;
}

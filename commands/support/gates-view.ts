/** Human output of `gates check`: a table of value / threshold / verdict and a one-line summary. */
import { GATE_UNITS, type GateResult } from '../../src/experiments/gates/gates.js';
import { srmLines } from './analysis-view.js';
import { formatValue } from './format.js';
import type { GatesReport } from './gates-report.js';
import { colours, formatCount, renderTable } from './output.js';

const unit = (result: GateResult): string => (GATE_UNITS[result.gate] === '' ? '' : ` ${GATE_UNITS[result.gate]}`);

function value(result: GateResult): string {
  return result.value === null ? '—' : `${formatValue(result.value)}${unit(result)}`;
}

function threshold(result: GateResult): string {
  return `${result.comparator} ${result.threshold}${unit(result)}`;
}

function verdict(result: GateResult): string {
  const c = colours();
  if (result.verdict === 'pass') return c.green('pass');
  if (result.verdict === 'fail') return c.red.bold('FAIL');
  return c.yellow(result.reason === 'no data' ? 'no data' : `inconclusive (${result.reason ?? 'undecided'})`);
}

/** The whole report as text. */
export function renderGates(report: GatesReport, allowInconclusive: boolean): string {
  const c = colours();
  const rows = report.variants.flatMap((variant) =>
    variant.gates.map((result) => [
      variant.is_control ? `${variant.name} (control)` : variant.name,
      formatCount(variant.users),
      result.gate,
      value(result),
      threshold(result),
      verdict(result),
    ]),
  );
  const title =
    report.experiment_id === null ? `Gates (${report.source})` : `Gates of experiment ${report.experiment_id} (${report.source})`;
  const lines = [c.bold(title), renderTable(['variant', 'users', 'gate', 'value', 'threshold', 'verdict'], rows), ...srmLines(report)];
  const failed = rows.filter((row) => row[5]?.includes('FAIL')).length;
  if (report.verdict === 'pass') lines.push(c.green.bold(`PASS: every variant passes every gate (${rows.length} checks).`));
  else if (report.verdict === 'fail')
    lines.push(c.red.bold(`FAIL: ${failed} gate check(s) failed${report.srm.mismatch ? ' and the sample ratio mismatches' : ''}.`));
  else
    lines.push(
      c.yellow.bold(
        `INCONCLUSIVE: some gates cannot decide yet (too few users, no data, or an interval spanning the threshold)${allowInconclusive ? '; allowed by --allow-inconclusive' : '; pass --allow-inconclusive to accept'}.`,
      ),
    );
  return lines.join('\n');
}

/**
 * JUnit XML for CI systems (Jenkins, GitLab, GitHub test reporters): one test case per
 * variant x gate, failures as <failure>, inconclusive gates as <skipped>; the sample
 * ratio check is its own suite so a mismatch shows up as a failure too.
 */
import { writeFile } from 'node:fs/promises';
import type { GateResult } from '../../src/experiments/gates/gates.js';
import { usageError } from './cli-error.js';
import { explainGateResult } from '../../src/experiments/gates/gate-explain.js';
import type { GatesReport } from './gates-report.js';

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

interface Case {
  classname: string;
  name: string;
  body: string;
  outcome: 'pass' | 'fail' | 'skip';
}

function gateCase(suite: string, variant: string, result: GateResult): Case {
  const classname = `${suite}.${variant}`;
  const name = `${variant} ${result.gate}`;
  const message = escape(explainGateResult(result));
  if (result.verdict === 'fail')
    return { classname, name, outcome: 'fail', body: `<failure type="GateFailed" message="${message}">${message}</failure>` };
  if (result.verdict === 'inconclusive')
    return { classname, name, outcome: 'skip', body: `<skipped message="${escape(result.reason ?? 'inconclusive')}: ${message}"/>` };
  return { classname, name, outcome: 'pass', body: '' };
}

function suiteXml(name: string, cases: Case[], timestamp: string): string {
  const failures = cases.filter((c) => c.outcome === 'fail').length;
  const skipped = cases.filter((c) => c.outcome === 'skip').length;
  const body = cases
    .map((c) => {
      const open = `    <testcase classname="${escape(c.classname)}" name="${escape(c.name)}" time="0"`;
      return c.body === '' ? `${open}/>` : `${open}>\n      ${c.body}\n    </testcase>`;
    })
    .join('\n');
  return `  <testsuite name="${escape(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" timestamp="${timestamp}" time="0">\n${body}\n  </testsuite>`;
}

/** The report as a JUnit XML document. */
export function junitXml(report: GatesReport, now = new Date()): string {
  const suite = report.experiment_id === null ? 'recsvc.gates' : `recsvc.gates.experiment_${report.experiment_id}`;
  const timestamp = now.toISOString().slice(0, 19);
  const gateCases = report.variants.flatMap((variant) => variant.gates.map((result) => gateCase(suite, variant.name, result)));
  const srm = report.srm;
  const srmMessage = escape(srm.p_value === null ? 'no users' : `chi-square ${srm.chi_square}, p = ${srm.p_value}`);
  const srmCase: Case = srm.mismatch
    ? {
        classname: suite,
        name: 'sample ratio mismatch',
        outcome: 'fail',
        body: `<failure type="SampleRatioMismatch" message="users are not split as allocated: ${srmMessage}">${srmMessage}</failure>`,
      }
    : { classname: suite, name: 'sample ratio mismatch', outcome: 'pass', body: '' };
  const all = [...gateCases, srmCase];
  const totals = `tests="${all.length}" failures="${all.filter((c) => c.outcome === 'fail').length}" errors="0" skipped="${all.filter((c) => c.outcome === 'skip').length}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="recsvc gates check" ${totals} time="0">`,
    suiteXml(`${suite} (${report.source})`, gateCases, timestamp),
    suiteXml(`${suite} sample ratio`, [srmCase], timestamp),
    '</testsuites>',
    '',
  ].join('\n');
}

/** Writes the XML; an unwritable path is a usage error naming it. */
export async function writeJunit(path: string, report: GatesReport): Promise<void> {
  try {
    await writeFile(path, junitXml(report));
  } catch (error) {
    throw usageError(`--junit ${path}: cannot write the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

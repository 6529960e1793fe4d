/** The work behind `recsvc selftest`: run the pure self-test, print its report, set the exit code. */
import { EXIT } from '../src/exit-codes.js';
import {
  analysisMethods,
  selftestOptionsIssue,
  selftestSteps,
  type RateCheck,
  type SelftestOptions,
  type SelftestReport,
} from '../src/experiments/stats/selftest.js';
import { parseAllocations } from './support/allocations.js';
import { usageError } from './support/cli-error.js';
import { formatPercent } from './support/format.js';
import { colours, formatCount, printJson, printLine, progress, progressDone, renderTable } from './support/output.js';

export interface SelftestCommandOptions {
  seed: number;
  experiments: number;
  users: number;
  ids: number;
  alpha: number;
  allocations: string;
  looks: number;
  sequentialLooks: number;
  minSampleSize: number;
  json?: boolean;
}

/** Runs the self-test; exit 1 (with one line on stderr naming them) when any figure is out of bounds. */
export async function runSelftestCommand(options: SelftestCommandOptions): Promise<void> {
  const variants = parseAllocations(options.allocations);
  const selftest: SelftestOptions = {
    seed: options.seed,
    experiments: options.experiments,
    usersPerExperiment: options.users,
    ids: options.ids,
    alpha: options.alpha,
    variants,
    methods: analysisMethods(options.looks, options.sequentialLooks),
    minimumSampleSize: options.minSampleSize,
  };
  const issue = selftestOptionsIssue(selftest);
  if (issue !== undefined) throw usageError(`--users: ${issue}`);
  const report = await runWithProgress(selftest);
  progressDone();
  if (options.json) printJson(report);
  else printLine(renderSelftest(report));
  const failed = failures(report);
  if (failed.length > 0) {
    process.stderr.write(`recsvc: selftest: out of bounds: ${failed.join('; ')}\n`);
    process.exitCode = EXIT.gateFailed;
  }
}

/** Steps through the run, showing progress on a terminal and yielding to the event loop (Ctrl-C) every few experiments. */
async function runWithProgress(options: SelftestOptions): Promise<SelftestReport> {
  const steps = selftestSteps(options);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    const { done, total } = step.value;
    if (done % 25 === 0) {
      progress(`selftest: ${formatCount(done)}/${formatCount(total)} A/A experiments`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

function failures(report: SelftestReport): string[] {
  return [
    ...report.false_positive_rates.filter((r) => !r.pass).map((r) => `${labelOf(r.method, r.looks)} ${rateText(r)} (${r.bound})`),
    ...(report.srm_false_alarms.pass ? [] : [`SRM false alarms ${rateText(report.srm_false_alarms)} (${report.srm_false_alarms.bound})`]),
    ...report.uniformity.filter((u) => !u.pass).map((u) => `${u.name} p = ${u.p_value.toExponential(2)} (${u.bound})`),
  ];
}

const labelOf = (method: string, looks: number): string => `false positives, ${method} (${looks} ${looks === 1 ? 'read' : 'reads'})`;

const rateText = (r: RateCheck): string => `${formatPercent(r.rate)} [${formatPercent(r.interval[0])}, ${formatPercent(r.interval[1])}]`;

/** The report as a header line and one table row per check. */
function renderSelftest(report: SelftestReport): string {
  const c = colours();
  const verdict = (pass: boolean): string => (pass ? c.green('ok') : c.red('OUT OF BOUNDS'));
  const allocations = report.variants.map((v) => `${v.name}=${v.traffic_allocation}`).join(',');
  const rows = [
    ...report.false_positive_rates.map((r) => [
      labelOf(r.method, r.looks),
      `${r.count}/${r.trials}`,
      rateText(r),
      r.bound,
      verdict(r.pass),
    ]),
    [
      'SRM false alarms (p < 0.001)',
      `${report.srm_false_alarms.count}/${report.srm_false_alarms.trials}`,
      rateText(report.srm_false_alarms),
      report.srm_false_alarms.bound,
      verdict(report.srm_false_alarms.pass),
    ],
    ...report.uniformity.map((u) => [
      u.name,
      `${formatCount(u.ids)} ids`,
      `chi2 ${u.chi_square.toFixed(1)}, df ${u.df}, p ${u.p_value.toFixed(4)}`,
      u.bound,
      verdict(u.pass),
    ]),
  ];
  return [
    `A/A self-test: ${formatCount(report.experiments)} experiments x ${formatCount(report.users_per_experiment)} users ` +
      `(${allocations}), alpha ${report.alpha}, seed ${report.seed}`,
    '',
    renderTable(['check', 'count', 'value [99.9% interval]', 'bound', 'result'], rows),
    '',
    report.pass ? 'all figures within bounds' : c.red('some figures are out of bounds'),
  ].join('\n');
}

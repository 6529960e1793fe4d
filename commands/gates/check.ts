/** `recsvc gates check`: every variant against every gate, with an exit code for CI. */
import type { Command } from 'commander';
import { DEFAULT_GATE_THRESHOLDS as DEFAULTS } from '../../src/experiments/experiment-defaults.js';
import { addOfflineOptions } from '../support/offline-options.js';
import { parseFiniteNumber, parsePositiveInt } from '../support/options.js';
import { addServerOptions } from '../support/server-options.js';
import type { GatesCheckOptions } from './check.action.js';

/** Registers `gates check`. */
export function registerGatesCheck(gates: Command): void {
  const command = gates
    .command('check')
    .description('check every variant against every gate; the exit code is the verdict')
    .argument('[id]', 'experiment id on the server (or use --file)', parsePositiveInt)
    .option('--max-p95 <ms>', `override max_response_time_p95 (default ${DEFAULTS.max_response_time_p95} ms)`, parseFiniteNumber)
    .option('--min-ctr <rate>', `override min_click_through_rate (default ${DEFAULTS.min_click_through_rate})`, parseFiniteNumber)
    .option('--max-error-rate <rate>', `override max_error_rate (default ${DEFAULTS.max_error_rate})`, parseFiniteNumber)
    .option('--min-satisfaction <rate>', `override min_user_satisfaction (default ${DEFAULTS.min_user_satisfaction})`, parseFiniteNumber)
    .option('--only <gates>', 'check only these gates: p95, ctr, error_rate, satisfaction (or full names)')
    .option(
      '--rule <rule>',
      "bounds: judge each figure's interval, inconclusive while it spans the threshold; point: the value alone (default: the experiment's gate_rule, bounds unless created with point)",
    )
    .option(
      '--allow-inconclusive',
      'exit 0 instead of 4 when gates cannot decide (too few users, no data, an interval spanning the threshold)',
    )
    .option('--junit <file>', 'also write JUnit XML (one test case per variant x gate) for CI')
    .option('--summary-md <file>', 'also append a Markdown summary (GitHub step-summary format, under 1 MiB), e.g. "$GITHUB_STEP_SUMMARY"')
    .option('--json', 'print the evaluation as one JSON object');
  addOfflineOptions(command);
  addServerOptions(command).addHelpText(
    'after',
    `
Thresholds: the experiment's own gates (defaults ${DEFAULTS.max_response_time_p95} ms, ${DEFAULTS.min_click_through_rate}, ${DEFAULTS.max_error_rate}, ${DEFAULTS.min_user_satisfaction}), overridden by flags.
Rule bounds (default): a gate passes only when the figure's whole interval clears the threshold
(CTR and satisfaction: lower bound >= minimum; error rate and p95: upper bound <= maximum), fails
when the whole interval is on the wrong side, and is inconclusive while it spans the threshold.
The intervals follow the experiment's confidence level and method (sequential: confidence
sequences, valid however often the gates are checked). --rule point: the value alone (the spec's rule).
Without --rule, the experiment's own gate_rule (chosen at creation; an export carries it) decides.
A gate the input has no data for (a CSV has no latency or errors) is "no data": inconclusive.
Exit codes: 0 every variant passes every gate; 1 a gate failed or sample ratio mismatch;
4 inconclusive (without --allow-inconclusive); 2 bad input; 3 server error.
JUnit XML: a failed gate is a <failure>, an inconclusive one <skipped> with the reason.

Examples:
  $ recsvc gates check 7 --junit reports/gates.xml
  $ recsvc gates check 7 --junit gates.xml --summary-md "$GITHUB_STEP_SUMMARY"
  $ recsvc gates check 7 --only p95,error_rate --max-p95 150
  $ recsvc gates check 7 --rule point
  $ recsvc gates check --file exp7.jsonl --json
  $ recsvc gates check --file users.csv -a control=50,treatment=50 -c control --only ctr,satisfaction`,
  );
  command.action(async (id: number | undefined, options: GatesCheckOptions) => {
    const { runGatesCheck } = await import('./check.action.js');
    await runGatesCheck(id, options);
  });
}

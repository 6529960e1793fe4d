/** `recsvc experiment analyze`: the statistics of an experiment, from the server or a file. */
import { Option, type Command } from 'commander';
import { METRIC_NAMES } from '../../src/experiments/metrics.js';
import { addOfflineOptions } from '../support/offline-options.js';
import { parsePositiveInt } from '../support/options.js';
import { addServerOptions } from '../support/server-options.js';
import { addMethodOption } from './analyze-method.js';
import type { AnalyzeOptions } from './analyze.action.js';

/** Registers `experiment analyze`. */
export function registerAnalyze(group: Command): void {
  const command = group
    .command('analyze')
    .description('analyse an experiment: per metric, each variant vs control with lift, Holm-adjusted interval and p; SRM check')
    .argument('[id]', 'experiment id on the server (or use --file)', parsePositiveInt)
    .addOption(new Option('-m, --metric <name>', 'primary metric (shown first; the spec shapes use it)').choices(METRIC_NAMES))
    .option('--json', 'print the analysis as one JSON object (decisions.md layout, with metric_roles, guardrails and decision)')
    .option('--by-instance', "add users, the sample ratio check and the metrics per instance of the users' ids (by_instance)");
  addMethodOption(command, "analysis method for this read (default: the experiment's, recorded at creation; fixed for a file without one)");
  addOfflineOptions(command);
  addServerOptions(command).addHelpText(
    'after',
    `
Offline input is the JSON Lines file of \`experiment export\`, or a CSV with the header
  user_id,variant,impressions,clicks,interactions,sessions,session_seconds,bounces,feedback_positive,feedback_negative
which needs --allocations and --control (or --experiment-file). Files are streamed.
A sample ratio mismatch is printed prominently and warned about on stderr.
The method (fixed | sequential) is the experiment's, recorded at creation; --method overrides it
for this read, e.g. --method fixed for the planned final read of a sequential experiment.
A CSV, or an export from before the choice existed, is read fixed-horizon unless --method says otherwise.
An interleaving experiment (online, or its export) is analysed by preference share: with the
sequential method an always-valid p-value and confidence sequence, with fixed the sign test and
Wilson interval.
The decision is drawn from the primary metric alone; guardrails (the experiment's, an export's, or
bounce_rate and user_satisfaction for a CSV) are tested one-sided for harm, Holm-corrected across
them; every other metric is exploratory.

Examples:
  $ recsvc experiment analyze 7
  $ recsvc experiment analyze 7 --metric user_satisfaction --json
  $ recsvc experiment analyze 7 --method fixed
  $ recsvc experiment analyze --file exp7.jsonl.gz
  $ recsvc experiment analyze --file users.csv --allocations control=50,treatment=50 --control control`,
  );
  command.action(async (id: number | undefined, options: AnalyzeOptions) => {
    const { runAnalyze } = await import('./analyze.action.js');
    await runAnalyze(id, options);
  });
}

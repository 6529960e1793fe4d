/** The flags describing offline input, shared by `experiment analyze` and `gates check`. */
import { InvalidArgumentError, type Command } from 'commander';
import { EXPERIMENT_DEFAULTS } from '../../src/experiments/experiment-defaults.js';
import { validateConfidenceLevel } from '../../src/experiments/design-rules.js';
import { parsePositiveInt } from './options.js';

/** `--confidence-level`: a number checked by the server's own rule for an experiment's confidence_level. */
export function parseConfidenceLevel(text: string): number {
  const value = text.trim() === '' ? Number.NaN : Number(text);
  const issue = validateConfidenceLevel(Number.isNaN(value) ? text : value);
  if (issue !== undefined) throw new InvalidArgumentError(issue);
  return value;
}

/** Adds --file, --allocations, --control, --experiment-file, --confidence-level, --min-sample-size. */
export function addOfflineOptions(command: Command): Command {
  return command
    .option('-f, --file <path>', 'work offline on a JSON Lines export or a per-user CSV (.gz read transparently)')
    .option('-a, --allocations <list>', 'CSV only: variants and allocations, e.g. control=50,treatment=50')
    .option('-c, --control <name>', 'CSV only: the control variant (with --allocations)')
    .option('--experiment-file <path>', "CSV only: the experiment's creation JSON instead of --allocations/--control")
    .option(
      '--confidence-level <level>',
      `CSV with --allocations: confidence level, strictly between 0 and 1 (default ${EXPERIMENT_DEFAULTS.confidence_level})`,
      parseConfidenceLevel,
    )
    .option(
      '--min-sample-size <users>',
      `CSV with --allocations: minimum users per variant (default ${EXPERIMENT_DEFAULTS.minimum_sample_size})`,
      parsePositiveInt,
    );
}

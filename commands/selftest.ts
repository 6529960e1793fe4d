/** `recsvc selftest`: simulated A/A experiments through the real assignment and analysis, with bounds and an exit code. */
import { InvalidArgumentError, type Command } from 'commander';
import { parseShare } from './support/options.js';
import { parsePositiveInt } from './support/options.js';
import type { SelftestCommandOptions } from './selftest.action.js';

/** Commander parser for a seed: an integer 0..2^32 − 1 (the generator's state). */
function parseSeed(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 0xffffffff) throw new InvalidArgumentError('expected an integer from 0 to 4294967295');
  return Number(text);
}

/** Registers `selftest`. */
export function registerSelftest(program: Command): void {
  program
    .command('selftest')
    .description('simulate A/A experiments through the real assignment and analysis; exit 1 when a figure is out of bounds')
    .option('--seed <n>', 'seed of the simulation (same seed, same report)', parseSeed, 1)
    .option('--experiments <n>', 'A/A experiments to simulate', parsePositiveInt, 1000)
    .option('--users <n>', 'users per experiment, split by the MD5 assignment rule', parsePositiveInt, 400)
    .option('--ids <n>', 'user ids hashed for the bucket uniformity tests', parsePositiveInt, 100_000)
    .option('--alpha <share>', 'false-positive rate the analysis is run at (1 − confidence level)', parseShare, 0.05)
    .option('-a, --allocations <list>', 'variants of the simulated experiments, the control first', 'control=50,treatment=50')
    .option('--looks <n>', 'reads of each experiment with the fixed-horizon method (it is designed for 1)', parsePositiveInt, 1)
    .option('--sequential-looks <n>', 'reads of each experiment with the sequential method (daily for 14 days)', parsePositiveInt, 14)
    .option('--min-sample-size <users>', 'minimum_sample_size of the simulated experiments', parsePositiveInt, 100)
    .option('--json', 'print the report as one JSON object')
    .addHelpText(
      'after',
      `
Each A/A experiment assigns its users with the service's own rule (MD5 of "<user>_<experiment>")
and analyses click-through rate with the service's own code; nothing differs between
variants, so every significant result is a false positive. Checks and bounds (99.9% Wilson
intervals; a correct build fails a seed about once in a thousand per check):
  false positives, fixed horizon read once    the interval contains alpha
  false positives, sequential (and fixed read more than once)
                                              the interval's lower end is at most alpha
  sample ratio mismatch false alarms          the interval's lower end is at most 0.001
  variant and traffic bucket uniformity       chi-square over 100 buckets, p >= 0.001
With several treatments the false-positive rate is Holm's family-wise rate.
Progress goes to stderr on a terminal. Exit codes: 0 all within bounds, 1 a figure out of
bounds, 2 bad flags.

Examples:
  $ recsvc selftest                               about 3 s: 1,000 experiments, 100,000 ids
  $ recsvc selftest --experiments 5000 --seed 7 --json
  $ recsvc selftest --looks 14                    fixed horizon peeked daily: fails (exit 1)
  $ recsvc selftest -a a=34,b=33,c=33 --users 600   Holm's family-wise rate, two treatments`,
    )
    .action(async (options: SelftestCommandOptions) => {
      const { runSelftestCommand } = await import('./selftest.action.js');
      await runSelftestCommand(options);
    });
}

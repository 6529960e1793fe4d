/** `recsvc experiment plan`: users per variant and days needed to detect an effect on one metric. */
import { Option, type Command } from 'commander';
import { EXPERIMENT_DEFAULTS } from '../../src/experiments/experiment-defaults.js';
import { DEFAULT_PRIMARY_METRIC, METRIC_NAMES } from '../../src/experiments/metrics.js';
import { DEFAULT_ALPHA, DEFAULT_POWER } from '../../src/experiments/stats/power.js';
import { ANALYSIS_METHODS, DEFAULT_ANALYSIS_METHOD } from '../../src/experiments/stats/sequential.js';
import { parseFiniteNumber, parsePositiveInt, parsePositiveNumber, parseRelativeEffect, parseShare } from '../support/options.js';
import { addServerOptions } from '../support/server-options.js';
import type { PlanOptions } from './plan.action.js';

/** Registers `experiment plan`. */
export function registerPlan(group: Command): void {
  const command = group
    .command('plan')
    .description('sample size per variant and duration to detect a minimum effect on one metric with a given power')
    .addOption(new Option('-m, --metric <name>', 'the metric to plan for').choices(METRIC_NAMES).default(DEFAULT_PRIMARY_METRIC))
    .option('--baseline <value>', "the control's expected metric value (e.g. 0.05 for a 5% CTR)", parseFiniteNumber)
    .option('--mde <percent>', 'minimum detectable effect relative to the baseline: 10% (or 10) = +10%', parseRelativeEffect)
    .option('--mde-absolute <value>', 'minimum detectable effect in the metric’s units, e.g. 0.005', parseFiniteNumber)
    .option('--power <share>', `probability of detecting the effect (default ${DEFAULT_POWER})`, parseShare, DEFAULT_POWER)
    .option('--alpha <share>', `two-sided false-positive rate over all treatments (default ${DEFAULT_ALPHA})`, parseShare, DEFAULT_ALPHA)
    .option('-a, --allocations <list>', 'variants and allocations in order', 'control=50,treatment=50')
    .option('-c, --control <name>', 'the control variant (default: the first of --allocations)')
    .addOption(
      new Option('--method <method>', 'how the experiment will be read: sequential (any time) or fixed (one planned read)')
        .choices(ANALYSIS_METHODS)
        .default(DEFAULT_ANALYSIS_METHOD),
    )
    .option('--pilot <file>', 'a pilot export or per-user CSV: the delta-method variance (and baseline, units per user) of its users')
    .option('--sd <value>', 'per-unit standard deviation (instead of measuring it in data)', parsePositiveNumber)
    .option('--binomial', "assume the metric's units are independent trials (sqrt(p(1-p)) per unit): under-plans when users differ")
    .option(
      '--per-user <units>',
      "the metric's denominator units per user, e.g. impressions per user for CTR (default 1)",
      parsePositiveNumber,
    )
    .option('--daily-users <users>', 'new users per day the experiment can enrol from (before --traffic)', parsePositiveNumber)
    .option('--traffic <percent>', 'traffic_percentage of the planned experiment', parsePositiveNumber, 100)
    .option(
      '--min-sample-size <users>',
      'also show the power at this minimum_sample_size',
      parsePositiveInt,
      EXPERIMENT_DEFAULTS.minimum_sample_size,
    )
    .option('--from-experiment <id>', 'read baseline, denominator per user and daily users observed in this experiment', parsePositiveInt)
    .option('--json', 'print the plan as one JSON object');
  addServerOptions(command)
    .addHelpText(
      'after',
      `
Users needed = the metric's denominator units needed / units per user. The spread is measured
in data by default: the delta-method variance of a pilot export or CSV (--pilot) or of a
running experiment (--from-experiment), which carries how much users differ; --sd gives it;
--binomial assumes sqrt(p(1-p)) per unit (every impression an independent trial), which
under-plans when users differ and is only used when asked. The output names the assumption.
--method sequential (the default, as new experiments are read) plans the read at the planned
size with the confidence sequence's wider boundary and the tuning an experiment created with
the planned minimum_sample_size gets; --method fixed plans one read at the end.
Several treatments: each is planned at alpha / treatments (Bonferroni), which the analysis'
Holm correction can only beat, so every comparison gets at least the planned power.
minimum_sample_size is the smallest variant's users: when it reaches that, all variants do.
Duration = all users needed / (daily users × traffic%), in whole days.

With --from-experiment <id> (and --server/--token, an admin token), the experiment's
GET .../metrics gives the control's baseline, its denominator units per user, and users
enrolled per active day (divided by its traffic_percentage); GET .../analysis gives the
per-unit standard deviation its delta-method standard error implies (users who differ make
it larger than sqrt(p(1-p))). Flags given win.

Examples:
  $ recsvc experiment plan --pilot last-month.jsonl --mde 10% --daily-users 2000
  $ recsvc experiment plan --baseline 0.05 --mde 10% --per-user 8.33 --binomial --method fixed
  $ recsvc experiment plan --pilot pilot.csv --mde 10% --allocations control=34,a=33,b=33 --json
  $ recsvc experiment plan -m session_duration --baseline 300 --mde-absolute 15 --sd 240
  $ recsvc experiment plan --from-experiment 7 --mde 5% --traffic 50`,
    )
    .action(async (options: PlanOptions) => {
      const { runPlan } = await import('./plan.action.js');
      await runPlan(options);
    });
}

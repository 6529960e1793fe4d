/** `recsvc experiment create`: from prompts (terminal), a JSON or YAML file, or flags. */
import { Option, type Command } from 'commander';
import { EXPERIMENT_TYPES } from '../../src/experiments/interleaving/experiment-type.js';
import { EXPERIMENT_DEFAULTS } from '../../src/experiments/experiment-defaults.js';
import { DEFAULT_GUARDRAIL_METRICS, DEFAULT_PRIMARY_METRIC, METRIC_NAMES } from '../../src/experiments/metrics.js';
import { GATE_RULES } from '../../src/experiments/gates/gates.js';
import { parseFiniteNumber, parsePositiveInt, parsePositiveNumber, parseRelativeEffect } from '../support/options.js';
import { addServerOptions } from '../support/server-options.js';
import { DEFAULT_ANALYSIS_METHOD } from '../../src/experiments/stats/sequential.js';
import { addMethodOption } from './analyze-method.js';
import type { CreateOptions } from './create.options.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Registers `experiment create`. */
export function registerCreate(group: Command): void {
  const command = group
    .command('create')
    .description('create an experiment (DRAFT): interactively in a terminal, or from --file or flags')
    .option('-f, --file <path>', "the creation body (the API's POST body) as JSON, or YAML for .yaml/.yml; - reads JSON from stdin")
    .option('-n, --name <name>', 'experiment name')
    .option('-d, --description <text>', 'what the experiment tests')
    .option('--variant <spec>', 'NAME:ALLOCATION[:AUTHOR,ENGAGEMENT,RECENCY,SEMANTIC] weights; repeat per variant', collect)
    .option('-c, --control <name>', 'the control variant')
    .option('--traffic <percent>', `percentage of users enrolled (default ${EXPERIMENT_DEFAULTS.traffic_percentage})`, parsePositiveNumber)
    .option('--min-sample-size <users>', `minimum users per variant (default ${EXPERIMENT_DEFAULTS.minimum_sample_size})`, parsePositiveInt)
    .option('--confidence-level <level>', `e.g. ${EXPERIMENT_DEFAULTS.confidence_level} (default)`, parsePositiveNumber)
    .addOption(new Option('-m, --metric <name>', `primary metric (default ${DEFAULT_PRIMARY_METRIC})`).choices(METRIC_NAMES))
    .option(
      '--primary-metric <name>',
      `the metric the decision is drawn from, e.g. ctr (default ${DEFAULT_PRIMARY_METRIC}; same as --metric)`,
    )
    .option(
      '--guardrail <metrics>',
      `metrics tested one-sided for harm, comma-separated or repeated, or none (default ${DEFAULT_GUARDRAIL_METRICS.join(',')})`,
      collect,
    )
    .addOption(new Option('--gate-rule <rule>', 'how the gate agent and gates check judge it (default bounds)').choices(GATE_RULES))
    .option('--baseline <value>', 'with --mde: warn when the minimum sample size is below what `experiment plan` needs', parseFiniteNumber)
    .option('--mde <percent>', 'minimum detectable effect relative to the baseline, e.g. 10%', parseRelativeEffect)
    .option('--per-user <units>', "the primary metric's denominator units per user (default 1)", parsePositiveNumber)
    .option('--pilot <file>', "with --mde: the warning's plan measures the spread in this export or per-user CSV (as experiment plan)")
    .option('--sd <value>', "with --mde: the primary metric's per-unit standard deviation", parsePositiveNumber)
    .option('--binomial', 'with --mde: assume independent units (under-plans when users differ)')
    .addOption(
      new Option(
        '--type <type>',
        "ab (default): users split between variants; interleaving: two rankers merged into each user's list (team draft)",
      ).choices(EXPERIMENT_TYPES),
    )
    .option('--no-interactive', 'never prompt, even in a terminal')
    .option('--json', 'print the created experiment as JSON instead of its id');
  addMethodOption(
    command,
    `how results are read: sequential (valid at any read) or fixed (one planned read); default ${DEFAULT_ANALYSIS_METHOD}, overrides a file's analysis_method`,
  );
  addServerOptions(command)
    .addHelpText(
      'after',
      `
In a terminal without --file or --variant, the command first checks that the server answers
and accepts the token (exit 3 at once if not), then asks for each field and checks it
as you type with the server's rules; Ctrl-C cancels (exit 130). Without a terminal (CI, pipes) it never prompts: a
missing flag is an error naming it (exit 2). Prints the new id (or the experiment with --json).
Weights default to the service's default ranking (0.35,0.25,0.25,0.15).

Examples:
  $ recsvc experiment create
  $ recsvc experiment create --file experiment.json      # or experiment.yaml
  $ recsvc experiment create --name "recency boost" --variant control:50 \\
      --variant recency:50:0.25,0.25,0.4,0.1 --control control --min-sample-size 2000
  $ recsvc experiment create --file experiment.json --primary-metric ctr --guardrail bounce_rate,user_satisfaction --gate-rule bounds

The decision is drawn from the primary metric alone; guardrails are tested one-sided for harm
(Holm-corrected across them); every other metric is exploratory. Error rate and p95 latency are
per-variant figures judged by the gates, not guardrail metrics.`,
    )
    .action(async (options: CreateOptions) => {
      const { runCreate } = await import('./create.action.js');
      await runCreate(options);
    });
}

/** The work behind `experiment create`: pick the source (prompts, file, flags), validate, POST. */
import { Type } from '@sinclair/typebox';
import { ExperimentSchema } from '../../src/experiments/experiment-response.schema.js';
import type { ExperimentCreate } from '../../src/experiments/experiment.schema.js';
import { DEFAULT_ANALYSIS_METHOD } from '../../src/experiments/stats/sequential.js';
import { ApiClient } from '../support/api-client.js';
import { CliError, usageError } from '../support/cli-error.js';
import { assertValidBody, bodyFromFlags, hasDefinitionFlags, missingFlag, readExperimentBody } from '../support/experiment-input.js';
import { experimentSummary } from '../support/experiment-view.js';
import { printJson, printLine, warn } from '../support/output.js';
import { EXPERIMENT_DEFAULTS } from '../../src/experiments/experiment-defaults.js';
import { DEFAULT_PRIMARY_METRIC, isMetricName } from '../../src/experiments/metrics.js';
import { sampleSizeWarning } from '../../src/experiments/stats/power.js';
import { resolveVariance } from './plan-variance.js';
import { methodDescription } from './analyze-method.view.js';
import { rolesLine, withRoleFlags } from './create-roles.js';
import type { CreateOptions } from './create.options.js';

/** Builds the body, checks it as the server would (exit 2 on a violation), creates it, prints the id. */
export async function runCreate(options: CreateOptions): Promise<void> {
  const client = new ApiClient(options);
  const { body: built, prompted } = await buildBody(options, client);
  if (options.type !== undefined) built.type = options.type;
  // --method sets the recorded analysis method (over a file's); without either, the server's default.
  const withMethod: ExperimentCreate = options.method === undefined || prompted ? built : { ...built, analysis_method: options.method };
  // --primary-metric, --guardrail and --gate-rule likewise override a file's fields (prompts offered them as defaults).
  const body = prompted ? withMethod : withRoleFlags(withMethod, options);
  assertValidBody(body, 'experiment create');
  await warnWhenUnderpowered(body, options);
  const experiment = await client.post(ApiClient.experimentsPath(), ExperimentSchema, body);
  if (options.json) {
    printJson(experiment);
    return;
  }
  printLine(String(experiment.id));
  const method = body.analysis_method ?? DEFAULT_ANALYSIS_METHOD;
  process.stderr.write(
    `created ${experimentSummary(experiment)}\nanalysis method: ${method} (${methodDescription(method)})\n${rolesLine(experiment)}\nstart it with: recsvc experiment start ${experiment.id}\n`,
  );
}

/** The body from a file, the prompts (`prompted`: roles and method answered there) or flags. */
async function buildBody(options: CreateOptions, client: ApiClient): Promise<{ body: ExperimentCreate; prompted: boolean }> {
  if (options.file !== undefined) {
    if (hasDefinitionFlags(options))
      throw usageError('give either --file or the definition flags (--name, --variant, --control), not both');
    const body = await readExperimentBody(options.file);
    assertValidBody(body, `--file ${options.file}`);
    return { body, prompted: false };
  }
  const interactive = options.interactive !== false && process.stdin.isTTY === true && process.stdout.isTTY === true;
  if (interactive && (options.variant === undefined || options.name === undefined)) {
    await assertServerAccepts(client);
    const { promptExperiment } = await import('./create.prompts.js');
    return { body: await promptExperiment(options), prompted: true };
  }
  const missing = missingFlag(options);
  if (missing !== undefined) {
    const why = interactive ? '' : ' (stdin is not a terminal, so nothing is asked)';
    throw usageError(`experiment create: missing ${missing}${why}; or pass --file experiment.json`);
  }
  const body = bodyFromFlags(options);
  assertValidBody(body, 'experiment create');
  return { body, prompted: false };
}

/**
 * Before the first question: an authenticated, admin-scoped read (the experiments list) proves
 * the server is up and the token may create, so nobody answers every prompt only to hit exit 3.
 */
async function assertServerAccepts(client: ApiClient): Promise<void> {
  // ACTIVE only: the same checks (reachable, authenticated, admin) for the smallest answer.
  await client.get(`${ApiClient.experimentsPath()}?status=ACTIVE`, Type.Array(ExperimentSchema));
}

/**
 * With --mde (and --baseline or --pilot): a warning (not an error) when minimum_sample_size is
 * below the plan `experiment plan` makes for the same experiment — its primary metric, its
 * analysis method, the spread measured in --pilot (or --sd, or --binomial when asked) — or, with
 * no spread to plan from, a warning saying the check was not made.
 */
async function warnWhenUnderpowered(body: ExperimentCreate, options: CreateOptions): Promise<void> {
  if (options.mde === undefined || (options.baseline === undefined && options.pilot === undefined)) return;
  const metric = isMetricName(body.primary_metric) ? body.primary_metric : DEFAULT_PRIMARY_METRIC;
  let variance;
  try {
    variance = await resolveVariance(metric, options);
  } catch (error) {
    if (!(error instanceof CliError) || options.pilot !== undefined) throw error;
    warn(`minimum_sample_size not checked against a plan: ${error.message}`);
    return;
  }
  const baseline = options.baseline ?? variance.baseline;
  if (baseline === undefined) return;
  const warning = sampleSizeWarning(
    {
      variants: body.variants,
      confidence_level: body.confidence_level ?? EXPERIMENT_DEFAULTS.confidence_level,
      minimum_sample_size: body.minimum_sample_size ?? EXPERIMENT_DEFAULTS.minimum_sample_size,
      primary_metric: body.primary_metric,
      analysis_method: body.analysis_method,
    },
    {
      baseline,
      effect: { kind: 'relative', value: options.mde },
      unitsPerUser: options.perUser ?? variance.units_per_user,
      sd: variance.sd,
      variance: variance.assumption,
    },
  );
  if (warning !== undefined) warn(warning);
}

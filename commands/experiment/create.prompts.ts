/**
 * Interactive `experiment create`: one question per field, each checked as it is typed
 * with the very validators the server runs (validate-experiment.ts), so what is wrong
 * shows under the prompt before anything is sent.
 */
import { confirm, input, select } from '@inquirer/prompts';
import type { ExperimentCreate, VariantInput, Weights } from '../../src/experiments/experiment.schema.js';
import { EXPERIMENT_DEFAULTS } from '../../src/experiments/experiment-defaults.js';
import { DEFAULT_PRIMARY_METRIC, METRIC_NAMES } from '../../src/experiments/metrics.js';
import {
  WEIGHT_KEYS,
  validateAllocation,
  validateConfidenceLevel,
  validateMinimumSampleSize,
  validateTrafficPercentage,
  validateVariantName,
  validateWeight,
  validateWeights,
} from '../../src/experiments/validate-experiment.js';
import { DEFAULT_ALGORITHM_CONFIG } from '../../src/ranking/ranking.types.js';
import { usageError } from '../support/cli-error.js';
import { assertValidBody } from '../support/experiment-input.js';
import type { CreateOptions } from './create.js';

/** A validator for inquirer: true, or the message to show. */
const check = (issue: string | undefined): true | string => issue ?? true;
const numeric = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));

/** Asks for every field; flags already given become the defaults. Ctrl-C (ExitPromptError) is mapped to exit 130 by run.ts. */
export async function promptExperiment(options: CreateOptions): Promise<ExperimentCreate> {
  const name = await input({
    message: 'Experiment name',
    ...(options.name !== undefined ? { default: options.name } : {}),
    validate: (v) => (v.trim() === '' ? 'name must not be empty' : true),
  });
  const description = await input({ message: 'Description', default: options.description ?? '' });
  const traffic = numeric(
    await input({
      message: 'Traffic percentage (users enrolled)',
      default: String(options.traffic ?? EXPERIMENT_DEFAULTS.traffic_percentage),
      validate: (v) => check(validateTrafficPercentage(numeric(v))),
    }),
  );
  const minimum = numeric(
    await input({
      message: 'Minimum sample size per variant',
      default: String(options.minSampleSize ?? EXPERIMENT_DEFAULTS.minimum_sample_size),
      validate: (v) => check(validateMinimumSampleSize(numeric(v))),
    }),
  );
  const confidence = numeric(
    await input({
      message: 'Confidence level',
      default: String(options.confidenceLevel ?? EXPERIMENT_DEFAULTS.confidence_level),
      validate: (v) => check(validateConfidenceLevel(numeric(v))),
    }),
  );
  const metric = await select({
    message: 'Primary metric',
    choices: METRIC_NAMES.map((m) => ({ name: m, value: m })),
    default: options.metric ?? DEFAULT_PRIMARY_METRIC,
  });
  const variants = await askVariants();
  const control = await select({
    message: 'Which variant is the control?',
    choices: variants.map((v) => ({ name: v.name, value: v.name })),
  });
  for (const variant of variants) variant.is_control = variant.name === control;
  const body: ExperimentCreate = {
    name: name.trim(),
    description,
    traffic_percentage: traffic,
    minimum_sample_size: minimum,
    confidence_level: confidence,
    primary_metric: metric,
    variants,
  };
  assertValidBody(body, 'experiment create');
  const summary = variants.map((v) => `${v.name} ${v.traffic_allocation}%${v.is_control ? ' (control)' : ''}`).join(', ');
  if (!(await confirm({ message: `Create "${body.name}" with ${summary}?`, default: true })))
    throw usageError('experiment create: cancelled');
  return body;
}

/** Variants one by one until the allocations reach 100 with at least two variants. */
async function askVariants(): Promise<VariantInput[]> {
  const variants: VariantInput[] = [];
  let used = 0;
  while (variants.length < 2 || Math.abs(used - 100) > 1e-9) {
    const n = variants.length + 1;
    const name = await input({
      message: `Variant ${n} name`,
      validate: (v) =>
        check(
          validateVariantName(v) ?? (variants.some((x) => x.name === v.trim()) ? `variant name "${v.trim()}" is used twice` : undefined),
        ),
    });
    const left = 100 - used;
    const allocation = numeric(
      await input({
        message: `Traffic allocation of ${name.trim()} (%; ${left} left)`,
        default: variants.length >= 1 ? String(left) : String(left / 2),
        validate: (v) =>
          check(
            validateAllocation(numeric(v)) ?? (numeric(v) > left + 1e-9 ? `only ${left}% is left (allocations add up to 100)` : undefined),
          ),
      }),
    );
    const weights = await askWeights(name.trim());
    variants.push({ name: name.trim(), description: '', traffic_allocation: allocation, algorithm_config: { weights }, is_control: false });
    used += allocation;
  }
  return variants;
}

/** Four weights; the last defaults to what makes them add up to 1, and the sum is checked. */
async function askWeights(variant: string): Promise<Weights> {
  for (;;) {
    const weights = {} as Weights;
    let sum = 0;
    for (const [i, key] of WEIGHT_KEYS.entries()) {
      const last = i === WEIGHT_KEYS.length - 1;
      const fallback = last ? Math.round((1 - sum) * 1e6) / 1e6 : DEFAULT_ALGORITHM_CONFIG.weights[key];
      const value = numeric(
        await input({
          message: `${variant}: weight ${key}`,
          default: String(fallback),
          validate: (v) => check(validateWeight(numeric(v), `weight ${key}`)),
        }),
      );
      weights[key] = value;
      sum += value;
    }
    const issue = validateWeights(weights);
    if (issue === undefined) return weights;
    process.stderr.write(`  ${issue}; enter the weights of ${variant} again\n`);
  }
}

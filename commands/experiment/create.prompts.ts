/**
 * Interactive `experiment create`: one question per field, each checked as it is typed
 * with the very validators the server runs (validate-experiment.ts), so what is wrong
 * shows under the prompt before anything is sent.
 */
import type { ExperimentCreate, VariantInput, Weights } from '../../src/experiments/experiment.schema.js';
import { EXPERIMENT_DEFAULTS } from '../../src/experiments/experiment-defaults.js';
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
import { INQUIRER_PROMPTS, promptRoles, roleDefaults, type Prompts } from './create-roles.prompts.js';
import type { CreateOptions } from './create.options.js';

/** A validator for inquirer: true, or the message to show. */
const check = (issue: string | undefined): true | string => issue ?? true;
const numeric = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));
/** What a validator is shown: the number typed, or the text itself when it is none ("abc", not NaN). */
const typed = (text: string): number | string => (Number.isFinite(numeric(text)) ? numeric(text) : text.trim());

/**
 * Asks for every field, the primary metric, guardrails, gate rule and analysis method included;
 * flags already given become the defaults (the answers win). Ctrl-C (ExitPromptError) is mapped
 * to exit 130 by run.ts. `prompts`: the terminal's, or scripted answers in tests.
 */
export async function promptExperiment(options: CreateOptions, prompts: Prompts = INQUIRER_PROMPTS): Promise<ExperimentCreate> {
  const { input, confirm, select } = prompts;
  const defaults = roleDefaults(options);
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
      validate: (v) => check(validateTrafficPercentage(typed(v))),
    }),
  );
  const minimum = numeric(
    await input({
      message: 'Minimum sample size per variant',
      default: String(options.minSampleSize ?? EXPERIMENT_DEFAULTS.minimum_sample_size),
      validate: (v) => check(validateMinimumSampleSize(typed(v))),
    }),
  );
  const confidence = numeric(
    await input({
      message: 'Confidence level',
      default: String(options.confidenceLevel ?? EXPERIMENT_DEFAULTS.confidence_level),
      validate: (v) => check(validateConfidenceLevel(typed(v))),
    }),
  );
  const roles = await promptRoles(defaults, prompts);
  const variants = await askVariants(prompts);
  const control = await select<string>({
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
    ...roles,
    variants,
  };
  assertValidBody(body, 'experiment create');
  const summary = variants.map((v) => `${v.name} ${v.traffic_allocation}%${v.is_control ? ' (control)' : ''}`).join(', ');
  const guardrails = roles.guardrail_metrics.length === 0 ? 'no guardrails' : `guardrails ${roles.guardrail_metrics.join(', ')}`;
  const decides = `decided by: primary ${roles.primary_metric}, ${guardrails}, gate rule ${roles.gate_rule}, ${roles.analysis_method} analysis`;
  if (!(await confirm({ message: `${decides}\n  Create "${body.name}" with ${summary}?`, default: true })))
    throw usageError('experiment create: cancelled');
  return body;
}

/** Variants one by one until the allocations reach 100 with at least two variants. */
async function askVariants(prompts: Prompts): Promise<VariantInput[]> {
  const { input } = prompts;
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
            validateAllocation(typed(v)) ?? (numeric(v) > left + 1e-9 ? `only ${left}% is left (allocations add up to 100)` : undefined),
          ),
      }),
    );
    const weights = await askWeights(name.trim(), prompts);
    variants.push({ name: name.trim(), description: '', traffic_allocation: allocation, algorithm_config: { weights }, is_control: false });
    used += allocation;
  }
  return variants;
}

/** Four weights; the last defaults to what is left of 1 (never below 0), and the sum is checked. */
async function askWeights(variant: string, { input }: Prompts): Promise<Weights> {
  for (;;) {
    const weights = {} as Weights;
    let sum = 0;
    for (const [i, key] of WEIGHT_KEYS.entries()) {
      const last = i === WEIGHT_KEYS.length - 1;
      const fallback = last ? Math.max(0, Math.round((1 - sum) * 1e6) / 1e6) : DEFAULT_ALGORITHM_CONFIG.weights[key];
      const value = numeric(
        await input({
          message: `${variant}: weight ${key}`,
          default: String(fallback),
          validate: (v) => check(validateWeight(typed(v), `weight ${key}`)),
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

/** The creation body from --file or from flags, checked with the server's rules before sending. */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { ExperimentCreate, VariantInput } from '../../src/experiments/experiment.schema.js';
import { OPTIONAL_WEIGHT_KEYS, WEIGHT_KEYS, validateExperiment } from '../../src/experiments/validate-experiment.js';
import { DEFAULT_ALGORITHM_CONFIG } from '../../src/ranking/ranking.types.js';
import { usageError } from './cli-error.js';

/** The flags that define an experiment (all optional here; `missingFlag` says which one is needed). */
export interface DefinitionFlags {
  name?: string;
  description?: string;
  variant?: string[];
  control?: string;
  traffic?: number;
  minSampleSize?: number;
  confidenceLevel?: number;
  metric?: string;
}

/** Whether any definition flag was given. */
export function hasDefinitionFlags(flags: DefinitionFlags): boolean {
  return [flags.name, flags.description, flags.variant, flags.control].some((value) => value !== undefined);
}

/** Reads --file: the API's creation body as JSON, or as YAML for `.yaml`/`.yml` files (`-` is JSON on stdin). */
export async function readExperimentBody(path: string): Promise<ExperimentCreate> {
  const yaml = /\.ya?ml$/i.test(path);
  let text: string;
  try {
    text = path === '-' ? await readStdin() : await readFile(path, 'utf8');
  } catch (error) {
    throw usageError(`--file ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let body: unknown;
  try {
    body = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw usageError(`--file ${path}: not valid ${yaml ? 'YAML' : 'JSON'} (${(error as Error).message.split('\n')[0]})`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw usageError(`--file ${path}: expected an object (the creation body)`);
  const issue = variantsIssue((body as { variants?: unknown }).variants);
  if (issue !== undefined) throw usageError(`--file ${path}: ${issue}`);
  return body as ExperimentCreate;
}

const WEIGHTS_EXAMPLE = `algorithm_config: { weights: { ${WEIGHT_KEYS.map((key) => `${key}: ${DEFAULT_ALGORITHM_CONFIG.weights[key]}`).join(', ')} } }`;

/** What is wrong with the file's variants before the creation rules can even be checked: the variant at fault and why. */
function variantsIssue(variants: unknown): string | undefined {
  if (variants === undefined) return '"variants" is missing (a list of at least two variants)';
  if (!Array.isArray(variants)) return '"variants" must be a list of variants';
  for (const [i, variant] of variants.entries()) {
    if (typeof variant !== 'object' || variant === null || Array.isArray(variant)) return `variants[${i}] must be an object (a variant)`;
    const named = typeof (variant as VariantInput).name === 'string' ? ` ("${(variant as VariantInput).name}")` : '';
    const config = (variant as Partial<VariantInput>).algorithm_config;
    if (typeof config?.weights === 'object' && config.weights !== null) continue;
    const misplaced = 'weights' in variant ? '; its "weights" belong under "algorithm_config"' : '';
    return `variants[${i}]${named} has no algorithm_config.weights${misplaced}; every variant needs its ranking weights, e.g. ${WEIGHTS_EXAMPLE}`;
  }
  return undefined;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The first flag a non-interactive create still needs, or undefined. */
export function missingFlag(flags: DefinitionFlags): string | undefined {
  if (flags.name === undefined) return '--name';
  if ((flags.variant?.length ?? 0) < 2) return '--variant (at least two, e.g. --variant control:50 --variant treatment:50)';
  if (flags.control === undefined) return '--control';
  return undefined;
}

/** Parses `NAME:ALLOCATION[:a,b,c,d]`. */
export function parseVariantSpec(spec: string, isControl: boolean): VariantInput {
  const match = /^([^:]+):([^:]+)(?::(.+))?$/.exec(spec.trim());
  if (!match) throw usageError(`--variant "${spec}": expected NAME:ALLOCATION[:AUTHOR,ENGAGEMENT,RECENCY,SEMANTIC]`);
  const allocation = Number(match[2]);
  const weights = match[3] === undefined ? { ...DEFAULT_ALGORITHM_CONFIG.weights } : parseWeights(match[3], spec);
  return {
    name: (match[1] as string).trim(),
    description: '',
    traffic_allocation: (match[2] as string).trim() === '' ? Number.NaN : allocation,
    algorithm_config: { weights },
    is_control: isControl,
  };
}

function parseWeights(text: string, spec: string): VariantInput['algorithm_config']['weights'] {
  const values = text.split(',').map((part) => (part.trim() === '' ? Number.NaN : Number(part)));
  const keys = [...WEIGHT_KEYS, ...OPTIONAL_WEIGHT_KEYS];
  if (values.length !== WEIGHT_KEYS.length && values.length !== keys.length) {
    throw usageError(`--variant "${spec}": give four weights (${WEIGHT_KEYS.join(',')}), or five with ${OPTIONAL_WEIGHT_KEYS.join(',')}`);
  }
  return Object.fromEntries(values.map((value, i) => [keys[i], value])) as VariantInput['algorithm_config']['weights'];
}

/** The body from flags (all needed flags present). */
export function bodyFromFlags(flags: DefinitionFlags): ExperimentCreate {
  const variants = (flags.variant ?? []).map((spec) => parseVariantSpec(spec, false));
  const control = variants.find((v) => v.name === flags.control);
  if (control === undefined)
    throw usageError(`--control: "${flags.control}" is not one of the --variant names (${variants.map((v) => v.name).join(', ')})`);
  control.is_control = true;
  const body: ExperimentCreate = { name: flags.name as string, description: flags.description ?? '', variants };
  if (flags.traffic !== undefined) body.traffic_percentage = flags.traffic;
  if (flags.minSampleSize !== undefined) body.minimum_sample_size = flags.minSampleSize;
  if (flags.confidenceLevel !== undefined) body.confidence_level = flags.confidenceLevel;
  if (flags.metric !== undefined) body.primary_metric = flags.metric as NonNullable<ExperimentCreate['primary_metric']>;
  return body;
}

/** Throws a usage error listing every violation of the creation rules, each with its field. */
export function assertValidBody(body: ExperimentCreate, origin: string): void {
  if (typeof body.name !== 'string' || body.name.trim() === '') throw usageError(`${origin}: name: must not be empty`);
  const issues = validateExperiment(body);
  if (issues.length === 0) return;
  throw usageError(`${origin}: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`);
}

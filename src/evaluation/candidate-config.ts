/**
 * Candidates of an evaluation from a JSON document: a weights file (`{"author_preference":
 * 0.4, ...}`), an `algorithm_config` (`{"weights": {...}}`), an experiment variant
 * (`{"name", "algorithm_config"}`), or an experiment (`{"variants": [...]}`, e.g. the first
 * line of `recsvc experiment export`), whose variants all become candidates. Checked against
 * the same schema experiments are created with.
 */
import { AlgorithmConfigSchema, WeightsSchema, type AlgorithmConfig } from '../experiments/experiment.schema.js';
import { findWireMismatch } from '../schemas/wire-check.js';

export interface NamedConfig {
  readonly name: string;
  readonly config: AlgorithmConfig;
}

/** The candidates a document describes; `name` names a bare weights file or config. Throws a message naming the field. */
export function candidatesFromJson(value: unknown, name: string): NamedConfig[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('expected a JSON object');
  const doc = value as Record<string, unknown>;
  if (Array.isArray(doc.variants)) {
    return doc.variants.map((variant, i) => {
      const v = (variant ?? {}) as Record<string, unknown>;
      return {
        name: typeof v.name === 'string' ? v.name : `${name}[${i}]`,
        config: checked(v.algorithm_config, `variants[${i}].algorithm_config`),
      };
    });
  }
  if ('algorithm_config' in doc)
    return [{ name: typeof doc.name === 'string' ? doc.name : name, config: checked(doc.algorithm_config, 'algorithm_config') }];
  if ('weights' in doc) return [{ name, config: checked(doc, '') }];
  const mismatch = findWireMismatch(WeightsSchema, doc);
  if (mismatch !== undefined)
    throw new Error(`${mismatch.field}: ${mismatch.message} (expected weights, an algorithm_config, a variant or an experiment)`);
  return [{ name, config: checked({ weights: doc, use_semantic_scoring: true }, '') }];
}

function checked(value: unknown, at: string): AlgorithmConfig {
  const mismatch = findWireMismatch(AlgorithmConfigSchema, value);
  if (mismatch !== undefined)
    throw new Error(
      `${at === '' ? '' : `${at}.`}${mismatch.field === '(body)' ? '' : mismatch.field}: ${mismatch.message}`.replace(/\.: /, ': '),
    );
  const config = value as AlgorithmConfig;
  for (const [key, weight] of Object.entries(config.weights)) {
    if (!(weight >= 0 && weight <= 1)) throw new Error(`${at === '' ? '' : `${at}.`}weights.${key}: must be in [0, 1] (got ${weight})`);
  }
  return config;
}

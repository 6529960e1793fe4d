/** Loads the SciPy reference fixtures of test/fixtures/stats into accumulators. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AnalysisDesign } from '../../../../src/experiments/stats/analysis.js';
import { COUNT_KEYS, type UserCounts } from '../../../../src/experiments/metrics.js';
import { createAccumulators, type VariantAccumulator } from '../../../../src/experiments/stats/variant-accumulator.js';

export const FIXTURES = fileURLToPath(new URL('../../../fixtures/stats/', import.meta.url));

export interface ReferenceComparison {
  metric: string;
  variant: string;
  control: string;
  control_value: number;
  variant_value: number;
  difference: number;
  standard_error: number;
  ci_low: number;
  ci_high: number;
  effect_size: number;
  p_value: number;
  adjusted_p_value: number;
  /** Holm-consistent interval (generate_reference.py); null when underpowered. */
  adjusted_ci_low: number | null;
  adjusted_ci_high: number | null;
  significant: boolean;
}

export interface ReferenceDataset {
  name: string;
  provenance: Record<string, string>;
  design: AnalysisDesign;
  columns: string[];
  users: [string, string, ...number[]][];
  expected: {
    sample_sizes: Record<string, number>;
    metrics: Record<string, Record<string, number>>;
    comparisons: ReferenceComparison[];
    srm: { chi_square: number; p_value: number; mismatch: boolean };
    underpowered: boolean;
  };
}

/** Parses a fixture file of test/fixtures/stats. */
export function readFixture<T>(name: string): T {
  return JSON.parse(readFileSync(`${FIXTURES}${name}`, 'utf8')) as T;
}

/** A user row of a reference dataset as UserCounts. */
export function countsOf(row: readonly (string | number)[], columns: readonly string[]): UserCounts {
  const counts = {} as UserCounts;
  for (const key of COUNT_KEYS) counts[key] = row[columns.indexOf(key)] as number;
  return counts;
}

/** Streams a dataset's users into fresh accumulators, one per design variant. */
export function accumulate(dataset: ReferenceDataset): Map<string, VariantAccumulator> {
  const accumulators = createAccumulators(dataset.design.variants.map((v) => v.name));
  for (const row of dataset.users) accumulators.get(row[1])?.add(countsOf(row, dataset.columns));
  return accumulators;
}

export const REFERENCE_DATASETS = ['two-variant', 'three-variant', 'srm', 'strong-effect'];

/**
 * The single-field rules of an experiment's design (decisions.md, Experiments) that the CLI's
 * offline commands and the export parser share: a leaf module (no schemas), so `recsvc bucket`
 * and `recsvc gates check --file` do not load TypeBox. validate-experiment.ts re-exports them.
 */
const ALLOCATION_SUM_TOLERANCE = 1e-9;

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const show = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));

/** A variant's traffic allocation: a percentage greater than 0 and at most 100. */
export function validateAllocation(value: unknown): string | undefined {
  if (!isNumber(value)) return `traffic allocation must be a number (got ${show(value)})`;
  if (value <= 0 || value > 100) return `traffic allocation must be greater than 0 and at most 100 (got ${value})`;
  return undefined;
}

/** The allocations of all variants: they must add up to 100 (within 1e-9). */
export function validateAllocationSum(allocations: readonly number[]): string | undefined {
  const sum = allocations.reduce((a, b) => a + b, 0);
  if (Math.abs(sum - 100) > ALLOCATION_SUM_TOLERANCE) {
    return `traffic allocations must add up to 100 (they add up to ${sum}: ${allocations.join(' + ')})`;
  }
  return undefined;
}

/** A variant name: not blank. */
export function validateVariantName(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return 'variant name must not be empty';
  return undefined;
}

/** The confidence level: strictly between 0 and 1 (0.95 means 95%). */
export function validateConfidenceLevel(value: unknown): string | undefined {
  if (!isNumber(value) || value <= 0 || value >= 1) {
    return `confidence level must be strictly between 0 and 1, e.g. 0.95 (got ${show(value)})`;
  }
  return undefined;
}

/** The minimum sample size per variant: a whole number of users, at least 1. */
export function validateMinimumSampleSize(value: unknown): string | undefined {
  if (!isNumber(value) || !Number.isInteger(value) || value < 1) {
    return `minimum sample size must be a whole number of users, at least 1 (got ${show(value)})`;
  }
  return undefined;
}

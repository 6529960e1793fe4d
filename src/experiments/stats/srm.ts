/**
 * Sample ratio mismatch: are users split across variants as the allocations say?
 */
import { chiSquareSf } from './distributions.js';

/** The SRM verdict; chi_square and p_value are null when there are no users. */
export interface SrmResult {
  chi_square: number | null;
  p_value: number | null;
  mismatch: boolean;
}

export const SRM_P_THRESHOLD = 0.001;

/**
 * Chi-square goodness of fit: χ² = Σ (oᵢ − eᵢ)²/eᵢ with eᵢ = N·aᵢ/Σa, df = k − 1,
 * p = P(χ²_df > χ²); mismatch when p < 0.001.
 */
export function sampleRatioMismatch(observed: readonly number[], allocations: readonly number[]): SrmResult {
  const total = observed.reduce((a, b) => a + b, 0);
  const allocationTotal = allocations.reduce((a, b) => a + b, 0);
  if (total === 0 || observed.length < 2 || !(allocationTotal > 0)) {
    return { chi_square: null, p_value: null, mismatch: false };
  }
  let chiSquare = 0;
  observed.forEach((o, i) => {
    const expected = (total * (allocations[i] ?? 0)) / allocationTotal;
    chiSquare += expected > 0 ? (o - expected) ** 2 / expected : o > 0 ? Number.POSITIVE_INFINITY : 0;
  });
  const pValue = chiSquareSf(chiSquare, observed.length - 1);
  return { chi_square: chiSquare, p_value: pValue, mismatch: pValue < SRM_P_THRESHOLD };
}

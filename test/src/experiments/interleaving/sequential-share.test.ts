/**
 * The sequential (always-valid) interleaving analysis against an independent SciPy
 * implementation (generate_interleaving_sequential.py: likelihood ratio as a ratio of normal
 * densities, confidence sequence by root-finding), and its link to the A/B mSPRT.
 */
import { describe, expect, it } from 'vitest';
import { analyzeInterleaving } from '../../../../src/experiments/interleaving/analysis.js';
import { interleavingResult } from '../../../../src/experiments/interleaving/interleaving-result.js';
import {
  interleavingTuning,
  sequentialSharePValue,
  shareConfidenceSequence,
} from '../../../../src/experiments/interleaving/sequential-share.js';
import { alwaysValidPValue } from '../../../../src/experiments/stats/sequential.js';
import { readFixture } from '../stats/reference-data.js';

interface Case {
  k: number;
  n: number;
  confidence_level: number;
  minimum_sample_size: number;
  rho_squared: number;
  p_value: number;
  interval: [number, number];
}

const reference = readFixture<{ provenance: Record<string, string>; cases: Case[] }>('reference-interleaving-sequential.json');

/** k wins of A and n − k of B, one credited click each. */
const preferences = (k: number, n: number) => [
  ...Array.from({ length: k }, () => ({ a: 1, b: 0 })),
  ...Array.from({ length: n - k }, () => ({ a: 0, b: 1 })),
];

describe('sequential preference share against the SciPy reference (generate_interleaving_sequential.py)', () => {
  it('has its provenance', () => {
    expect(reference.provenance.script).toBe('test/fixtures/stats/generate_interleaving_sequential.py');
    expect(reference.provenance.scipy).toBeDefined();
    expect(reference.cases.length).toBeGreaterThan(10);
  });

  it.each(reference.cases)('$k of $n at $confidence_level, minimum $minimum_sample_size', (c) => {
    const tuning = interleavingTuning(1 - c.confidence_level, c.minimum_sample_size);
    expect(Math.abs(tuning.rho_squared - c.rho_squared) / c.rho_squared).toBeLessThan(1e-12);
    const p = sequentialSharePValue(c.k, c.n, tuning.rho_squared) as number;
    expect(Math.abs(p - c.p_value)).toBeLessThan(1e-9);
    const [low, high] = shareConfidenceSequence(c.k, c.n, tuning.rho_squared, c.confidence_level) as [number, number];
    expect(Math.abs(low - c.interval[0])).toBeLessThan(1e-9);
    expect(Math.abs(high - c.interval[1])).toBeLessThan(1e-9);
    // Through the analysis: the same numbers, and significance exactly when the sequence excludes 1/2.
    const stats = analyzeInterleaving(preferences(c.k, c.n), {
      confidenceLevel: c.confidence_level,
      minimumSampleSize: c.minimum_sample_size,
      method: 'sequential',
    });
    expect(stats).toMatchObject({ method: 'sequential', pValue: p, ciLow: low, ciHigh: high });
    expect(stats.significant).toBe(c.n >= c.minimum_sample_size && (low > 0.5 || high < 0.5));
  });
});

describe('the sequential method of interleaving experiments', () => {
  it('is the A/B mSPRT on the share with the null SE 1/(2√n), and its tuning counts users with a preference', () => {
    const tuning = interleavingTuning(0.05, 400);
    expect(tuning.target_sample_size).toBe(400);
    expect(sequentialSharePValue(230, 400, tuning.rho_squared)).toBe(alwaysValidPValue(230 / 400 - 0.5, 0.5 / 20, 400, tuning.rho_squared));
    expect(sequentialSharePValue(0, 0, tuning.rho_squared)).toBeNull();
    expect(shareConfidenceSequence(0, 0, tuning.rho_squared, 0.95)).toBeNull();
  });

  it('is more cautious than the single-read sign test: 75 of 120 is significant fixed, not sequential', () => {
    const users = preferences(75, 120);
    const fixed = analyzeInterleaving(users, { confidenceLevel: 0.95, minimumSampleSize: 100 });
    const sequential = analyzeInterleaving(users, { confidenceLevel: 0.95, minimumSampleSize: 100, method: 'sequential' });
    expect(fixed.method).toBe('fixed');
    expect(fixed.pValue as number).toBeLessThan(0.05);
    expect(sequential.pValue as number).toBeGreaterThan(0.05);
    expect((sequential.ciHigh as number) - (sequential.ciLow as number)).toBeGreaterThan(
      (fixed.ciHigh as number) - (fixed.ciLow as number),
    );
  });

  it('follows the experiment’s recorded method unless the read overrides it', () => {
    const design = {
      id: 9,
      confidence_level: 0.95,
      minimum_sample_size: 10,
      analysis_method: 'sequential',
      variants: [
        { name: 'control', is_control: true },
        { name: 'fresh', is_control: false },
      ],
    };
    const users = preferences(30, 40).map((u) => ({ ...u, impressionsA: 5, impressionsB: 5 }));
    const recorded = interleavingResult(design, users);
    expect(recorded).toMatchObject({ analysis_method: 'sequential', method: 'team_draft_sequential' });
    expect(recorded.sequential_tuning).toEqual(interleavingTuning(1 - 0.95, 10));
    const fixed = interleavingResult(design, users, 'fixed');
    expect(fixed).toMatchObject({ analysis_method: 'fixed', method: 'team_draft_sign_test', sequential_tuning: null });
    expect(fixed.p_value).not.toBe(recorded.p_value);
    expect(interleavingResult({ ...design, analysis_method: undefined } as never, users).analysis_method).toBe('fixed');
    expect(() => interleavingResult({ ...design, analysis_method: 'bayesian' }, users)).toThrow(/analysis_method/);
  });
});

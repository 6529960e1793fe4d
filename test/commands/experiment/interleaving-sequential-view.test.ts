/** The interleaving report in the terminal with the sequential method: what is shown and what it promises. */
import { describe, expect, it } from 'vitest';
import { renderInterleaving } from '../../../commands/experiment/interleaving.view.js';
import { interleavingResult } from '../../../src/experiments/interleaving/interleaving-result.js';

const design = {
  id: 4,
  confidence_level: 0.95,
  minimum_sample_size: 5,
  analysis_method: 'sequential',
  variants: [
    { name: 'control', is_control: true },
    { name: 'recency', is_control: false },
  ],
};
const user = (a: number, b: number) => ({ a, b, impressionsA: 4, impressionsB: 4 });

describe('the sequential interleaving report', () => {
  it('names the method, its tuning in users with a preference, the confidence sequence and the always-valid p', () => {
    const users = [...Array.from({ length: 9 }, () => user(2, 0)), user(0, 1), user(1, 1), user(0, 0)];
    const analysis = interleavingResult(design, users);
    const text = renderInterleaving(analysis, 'Experiment 4 "recency" (ACTIVE)');
    expect(text).toContain('Method: sequential (always-valid p-values and confidence sequences by mixture SPRT, valid at every read');
    expect(text).toContain('tightest at 5 users with a preference)');
    const low = ((analysis.ci_low as number) * 100).toFixed(1);
    const high = ((analysis.ci_high as number) * 100).toFixed(1);
    expect(text).toContain(`preference for recency: 90.0% [${low}%, ${high}%] (95% confidence sequence), p = `);
    expect(text).toContain('(always-valid, vs 50%)');
    // 9 of 10 is significant with the single-read sign test (p = 0.0215) but not yet as an always-valid read.
    expect(analysis.p_value as number).toBeGreaterThan(0.05);
    expect(text).toContain('verdict: no significant preference');
  });
});

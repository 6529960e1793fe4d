import { describe, expect, it } from 'vitest';
import { renderInterleaving } from '../../../commands/experiment/interleaving.view.js';
import { interleavingResult } from '../../../src/experiments/interleaving/interleaving-result.js';

const design = {
  id: 4,
  confidence_level: 0.95,
  minimum_sample_size: 5,
  variants: [
    { name: 'control', is_control: true },
    { name: 'recency', is_control: false },
  ],
};
const user = (a: number, b: number) => ({ a, b, impressionsA: 4, impressionsB: 4 });

describe('the interleaving report in the terminal', () => {
  it('prints wins, ties, the preference share of the ranker under test with its interval, the sign test and the verdict', () => {
    const users = [...Array.from({ length: 9 }, () => user(2, 0)), user(0, 1), user(1, 1), user(0, 0)];
    const text = renderInterleaving(interleavingResult(design, users), 'Experiment 4 "recency" (ACTIVE)');
    expect(text).toContain('interleaving (team draft)');
    expect(text).toContain('with a preference 10, ties 1 (excluded), without clicks 1');
    expect(text).toMatch(/recency\s+under test\s+9\s+19\s+48/);
    expect(text).toMatch(/control\s+control\s+1\s+2\s+48/);
    expect(text).toContain('preference for recency: 90.0% [59.6%, 98.2%] (95% Wilson), p = 0.0215 (exact sign test vs 50%)');
    expect(text).toContain('verdict: users prefer recency (significant)');
  });

  it('says when there are too few users with a preference for a verdict', () => {
    const text = renderInterleaving(interleavingResult(design, [user(1, 0), user(0, 0)]), 'Experiment 4');
    expect(text).toContain('underpowered: 1 users with a preference, 5 needed before a verdict');
    expect(text).toContain('preference for recency: 100.0%');
  });
});

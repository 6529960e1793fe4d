import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bootstrapCoverage,
  bootstrapMean,
  bootstrapPairedDifference,
  drawResamples,
  quantileSorted,
  type Resamples,
} from '../../../src/evaluation/bootstrap.js';
import { baselines } from '../../../src/evaluation/baselines.js';
import { buildDataset, temporalSplit } from '../../../src/evaluation/dataset.js';
import { EvalState } from '../../../src/evaluation/eval-context.js';
import { evaluate } from '../../../src/evaluation/evaluate.js';
import { catalogueCoverage, selfInformation, userMetrics } from '../../../src/evaluation/metrics.js';
import { CUTOFF_MS, EXPECTED, INTERACTIONS, K, POSTS } from '../../fixtures/evaluation/tiny-holdout.js';

interface Reference {
  k: number;
  users: Record<string, { list: string[]; relevant: string[] }>;
  engaged_users: Record<string, number>;
  train_users: number;
  catalogue: number;
  expected: Record<string, Record<'ndcg' | 'recall' | 'hit_rate' | 'mrr' | 'novelty', number>>;
  coverage: number;
  bootstrap: {
    positions: number[][];
    ndcg: { value: number; ci_low: number; ci_high: number };
    ndcg_minus_mrr: { value: number; ci_low: number; ci_high: number };
    coverage: { value: number; ci_low: number; ci_high: number };
  };
  quantiles: { input: number[]; q: number[]; expected: number[] };
}

// Reference values from an independent implementation (Python and numpy): see the fixture's provenance.
const reference = JSON.parse(
  readFileSync(new URL('../../fixtures/evaluation/metrics-reference.json', import.meta.url), 'utf8'),
) as Reference;
const info = (id: string): number => selfInformation(reference.engaged_users[id] ?? 0, reference.train_users);

describe('evaluation metrics', () => {
  it('match hand computations on a tiny list', () => {
    // Relevant at ranks 2 and 5 of 3 relevant: DCG = 1/log2(3) + 1/log2(6), IDCG = 1 + 1/log2(3) + 1/2.
    const m = userMetrics(['p1', 'p2', 'p3', 'p4', 'p5', 'p6'], new Set(['p2', 'p5', 'p9']), 5, () => 0);
    expect(m.ndcg).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(6)) / (1 + 1 / Math.log2(3) + 0.5), 12);
    expect(m.recall).toBeCloseTo(2 / 3, 12);
    expect(m.hit_rate).toBe(1);
    expect(m.mrr).toBe(0.5);
    // The item at rank 6 is cut off: a relevant item there counts for nothing.
    expect(userMetrics(['x', 'y', 'z', 'w', 'v', 'p9'], new Set(['p9']), 5, () => 0)).toMatchObject({ ndcg: 0, hit_rate: 0, mrr: 0 });
    // Self-information: an item 3 of 7 users engaged with: −log2(4/8) = 1 bit.
    expect(selfInformation(3, 7)).toBe(1);
  });

  it('match the independent reference per user and for coverage', () => {
    for (const [user, { list, relevant }] of Object.entries(reference.users)) {
      const m = userMetrics(list, new Set(relevant), reference.k, info);
      for (const [metric, value] of Object.entries(reference.expected[user] ?? {})) {
        expect(m[metric as keyof typeof m], `${user} ${metric}`).toBeCloseTo(value, 12);
      }
    }
    const lists = Object.values(reference.users).map((u) => u.list);
    expect(catalogueCoverage(lists, reference.k, reference.catalogue)).toBeCloseTo(reference.coverage, 12);
  });

  it('interpolates quantiles as numpy does (type 7)', () => {
    const sorted = Float64Array.from(reference.quantiles.input).sort();
    reference.quantiles.q.forEach((q, i) => expect(quantileSorted(sorted, q)).toBeCloseTo(reference.quantiles.expected[i] as number, 12));
  });

  it('gives the reference bootstrap intervals for the same resamples (means, paired differences, coverage)', () => {
    const order = Object.keys(reference.users);
    const rows = reference.bootstrap.positions;
    const resamples: Resamples = { samples: rows.length, users: order.length, positions: Int32Array.from(rows.flat()) };
    const metric = (name: 'ndcg' | 'mrr'): Float64Array => Float64Array.from(order, (u) => reference.expected[u]![name]);
    const close = (got: { value: number; ci_low: number; ci_high: number }, want: typeof got): void => {
      expect(got.value).toBeCloseTo(want.value, 12);
      expect(got.ci_low).toBeCloseTo(want.ci_low, 12);
      expect(got.ci_high).toBeCloseTo(want.ci_high, 12);
    };
    close(bootstrapMean(resamples, metric('ndcg')), reference.bootstrap.ndcg);
    close(bootstrapPairedDifference(resamples, metric('ndcg'), metric('mrr')), reference.bootstrap.ndcg_minus_mrr);
    const ids = new Map<string, number>();
    const lists = order.map((u) =>
      Int32Array.from(reference.users[u]!.list.slice(0, reference.k), (id) => {
        if (!ids.has(id)) ids.set(id, ids.size);
        return ids.get(id) as number;
      }),
    );
    close(bootstrapCoverage(resamples, lists, reference.catalogue), reference.bootstrap.coverage);
  });

  it('draws the same resamples from the same seed, and different ones from another', () => {
    const a = drawResamples(50, 20, 1);
    expect(drawResamples(50, 20, 1).positions).toEqual(a.positions);
    expect(drawResamples(50, 20, 2).positions).not.toEqual(a.positions);
    expect(Math.max(...a.positions)).toBeLessThan(50);
    // A constant has a zero-width interval; a spread sample an interval around its mean.
    expect(bootstrapMean(a, new Float64Array(50).fill(0.25))).toEqual({ value: 0.25, ci_low: 0.25, ci_high: 0.25 });
    const spread = bootstrapMean(
      drawResamples(50, 500, 3),
      Float64Array.from({ length: 50 }, (_, i) => i % 2),
    );
    expect(spread.ci_low).toBeLessThan(0.5);
    expect(spread.ci_high).toBeGreaterThan(0.5);
  });
});

describe('recsvc eval on a tiny holdout', () => {
  it("gives the metrics worked out by hand in the fixture's comment (test/fixtures/evaluation/tiny-holdout.ts)", () => {
    const split = temporalSplit(buildDataset(POSTS, INTERACTIONS), { cutoffMs: CUTOFF_MS });
    expect(split.users.map((u) => [u.userId, u.history.length, [...u.targets].sort()])).toEqual([
      ['ann', 2, ['p3', 'p5']],
      ['bob', 2, ['p2']],
      ['dan', 0, ['p4']],
    ]);
    const state = new EvalState(split);
    const evaluation = evaluate(state, baselines(state, ['popularity', 'newest']), { k: K, samples: 200, seed: 1 });
    const metrics = (group: string, ranker: string) =>
      evaluation.groups.find((g) => g.group === group)!.rankers.find((r) => r.name === ranker)!.metrics;
    for (const [ranker, groups] of Object.entries(EXPECTED)) {
      for (const [group, expected] of Object.entries(groups as Record<string, Record<string, number>>)) {
        const got = metrics(group, ranker);
        for (const [metric, value] of Object.entries(expected)) {
          expect(got[metric as keyof typeof got].value, `${ranker} ${group} ${metric}`).toBeCloseTo(value, 12);
        }
      }
    }
  });
});

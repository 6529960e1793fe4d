/**
 * `recsvc eval --trends` (src/evaluation/trends-eval.ts): recsvc's FASP trend rank against
 * fediscoverer's capped-count score, on a tiny fixture whose every number was computed by hand
 * (test/fixtures/evaluation/trends-tiny.json, with its arithmetic), and on the synthetic feed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildDataset, cutoffFor, type EvalInteraction, type EvalPost } from '../../../src/evaluation/dataset.js';
import { generateSynthetic, generatorOptions } from '../../../src/evaluation/generate.js';
import { createInteractionsParser, createPostsParser, toJsonLines } from '../../../src/evaluation/import-format.js';
import { evaluateTrends, fediscovererScore, gradedNdcg, listSpearman, trendInstants } from '../../../src/evaluation/trends-eval.js';

interface Fixture {
  T: string;
  posts: { id: string; hours: number; reblogOfId?: string; visibility?: string; sensitive?: boolean }[];
  interactions: [string, string, EvalInteraction['action'], number][];
  expected: {
    instants: number;
    skipped_instants: number;
    candidates: number;
    lists: Record<'recsvc' | 'fediscoverer', string[]>;
    ndcg: Record<'recsvc' | 'fediscoverer' | 'difference', number>;
    spearman: Record<'recsvc' | 'fediscoverer' | 'difference', number>;
  };
}

const H = 3_600_000;
const fixture = JSON.parse(readFileSync(new URL('../../fixtures/evaluation/trends-tiny.json', import.meta.url), 'utf8')) as Fixture;
const T = Date.parse(fixture.T);

function tinyDataset() {
  const posts = fixture.posts.map((p): EvalPost => ({
    id: p.id,
    accountId: `author-${p.id}`,
    accountUsername: `author${p.id}`,
    text: '',
    tags: [],
    language: 'en',
    createdAtMs: T + p.hours * H,
    favourites: 0,
    reblogs: 0,
    replies: 0,
    reblogOfId: p.reblogOfId ?? null,
    sensitive: p.sensitive ?? false,
    visibility: p.visibility ?? 'public',
  }));
  return buildDataset(
    posts,
    fixture.interactions.map(([userId, postId, action, hours]) => ({ userId, postId, action, atMs: T + hours * H })),
  );
}

const OPTIONS = { fromMs: T, withinLastHours: 4, horizonHours: 24, stepHours: 4, k: 20 };

describe('the trends evaluation on a hand-computed fixture', () => {
  it("ranks as recsvc's trends and fediscoverer's score do, and scores them against the next window", () => {
    const { instants, skipped } = trendInstants(tinyDataset(), OPTIONS);
    const e = fixture.expected;
    expect(instants).toHaveLength(e.instants);
    expect(skipped).toBe(e.skipped_instants);
    const [instant] = instants;
    expect(instant!.atMs).toBe(T);
    expect(instant!.candidates).toBe(e.candidates);
    expect(instant!.rankers.recsvc.list).toEqual(e.lists.recsvc);
    expect(instant!.rankers.fediscoverer.list).toEqual(e.lists.fediscoverer);
    expect(instant!.rankers.recsvc.ndcg).toBeCloseTo(e.ndcg.recsvc, 12);
    expect(instant!.rankers.fediscoverer.ndcg).toBeCloseTo(e.ndcg.fediscoverer, 12);
    expect(instant!.rankers.recsvc.spearman).toBeCloseTo(e.spearman.recsvc, 12);
    expect(instant!.rankers.fediscoverer.spearman).toBeCloseTo(e.spearman.fediscoverer, 12);
  });

  it('reports the means with intervals and the paired difference recsvc − fediscoverer', () => {
    const result = evaluateTrends(tinyDataset(), { ...OPTIONS, samples: 200, seed: 7 });
    const e = fixture.expected;
    expect(result.instants).toBe(1);
    const by = Object.fromEntries(result.rankers.map((r) => [r.name, r.metrics]));
    for (const metric of ['ndcg', 'spearman'] as const) {
      for (const name of ['recsvc', 'fediscoverer'] as const) {
        const estimate = by[name]![metric];
        expect(estimate.value).toBeCloseTo(e[metric][name], 12);
        // One instant: every resample is that instant.
        expect(estimate.ci_low).toBeCloseTo(e[metric][name], 12);
        expect(estimate.ci_high).toBeCloseTo(e[metric][name], 12);
      }
      expect(result.difference[metric].value).toBeCloseTo(e[metric].difference, 12);
    }
  });

  it("applies fediscoverer's caps and weights (app/models/concerns/scorable_concern.rb, content_activity.rb)", () => {
    expect(fediscovererScore(5, 0)).toBe(0.5);
    expect(fediscovererScore(100, 100)).toBe(20);
    // Capped: a million likes count as 100.
    expect(fediscovererScore(1_000_000, 3)).toBeCloseTo(10.3, 12);
    expect(fediscovererScore(0, 0, 10, 2)).toBeCloseTo(5, 12);
  });

  it('computes graded nDCG and Spearman with ties as their textbook definitions', () => {
    const gain = new Map([
      ['a', 0],
      ['b', 3],
      ['c', 1],
    ]);
    expect(gradedNdcg(['b', 'c', 'a'], gain, 20)).toBe(1);
    expect(gradedNdcg([], gain, 20)).toBe(0);
    expect(listSpearman(['b', 'c', 'a'], ['a', 'b', 'c'], gain)).toBeCloseTo(1, 12);
    expect(listSpearman(['a', 'c', 'b'], ['a', 'b', 'c'], gain)).toBeCloseTo(-1, 12);
    // b listed, a and c tied after it (rank 2.5 each); gains b 1, c 2, a 3: Pearson of (1, 2.5, 2.5) and (1, 2, 3) = 0.8660254 (python).
    expect(listSpearman(['b'], ['a', 'b', 'c'], gain)).toBeCloseTo(0.8660254037844387, 12);
    // Nothing listed: no order, 0.
    expect(listSpearman([], ['a', 'b', 'c'], gain)).toBe(0);
  });
});

describe('the trends evaluation on the synthetic feed', () => {
  it('evaluates every 4 hours of its second week, deterministically, with intervals around the values', () => {
    const data = generateSynthetic(generatorOptions('feed', { seed: 1 }));
    const posts = createPostsParser('synthetic');
    for (const line of toJsonLines(data.statuses).split('\n')) posts.line(line);
    const interactions = createInteractionsParser('synthetic');
    for (const line of toJsonLines(data.interactions).split('\n')) interactions.line(line);
    const dataset = buildDataset(posts.finish(), interactions.finish());
    const options = { ...OPTIONS, fromMs: cutoffFor(dataset.interactions, 0.5), samples: 300, seed: 2026 };
    const result = evaluateTrends(dataset, options);
    expect(result.instants).toBeGreaterThan(20);
    expect(result.mean_candidates).toBeGreaterThan(20);
    for (const ranker of result.rankers)
      for (const metric of ['ndcg', 'spearman'] as const) {
        const e = ranker.metrics[metric];
        expect(e.ci_low).toBeLessThanOrEqual(e.value);
        expect(e.ci_high).toBeGreaterThanOrEqual(e.value);
      }
    // Both rankers predict the next day far better than chance on a feed with social proof.
    for (const ranker of result.rankers) {
      expect(ranker.metrics.ndcg.value).toBeGreaterThan(0.5);
      expect(ranker.metrics.spearman.value).toBeGreaterThan(0.2);
    }
    // The paired difference is the difference of the means.
    const [recsvc, fediscoverer] = result.rankers;
    expect(result.difference.ndcg.value).toBeCloseTo(recsvc!.metrics.ndcg.value - fediscoverer!.metrics.ndcg.value, 12);
    expect(evaluateTrends(dataset, options)).toEqual(result);
  });
});

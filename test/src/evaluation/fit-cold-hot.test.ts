/**
 * The fit's "hot" cold start (`cold_start_recency: 'hot'`): on a community whose attention
 * follows "hot" — every engagement picks a post with probability ∝ its positives so far / (age
 * in hours + 2)^1.8 — the fit moves newcomers from the shipped share of recency to "hot", on an
 * interval above 0; on the synthetic feed (attention that fades within hours, not by that law)
 * it keeps the share.
 */
import { describe, expect, it } from 'vitest';
import { buildDataset, temporalSplit, type EvalInteraction, type EvalPost } from '../../../src/evaluation/dataset.js';
import { fitRankingDefault, fitSteps, neighbourColdShares } from '../../../src/evaluation/fit.js';
import { mulberry32 } from '../../../src/experiments/interleaving/team-draft.js';
import { evalPost } from '../../helpers/eval-post.js';
import { HOT_COLD_START, rankingOf, SHIPPED_RANKING_DEFAULT, type RankingDefault } from '../../../src/ranking/ranking-default.js';

const HOUR = 3_600_000;

/**
 * Six days; each hour three new posts and 200 favourites, by 900 users and, from the fifth day
 * on, a quarter of them by 1,500 users arriving then (the newcomers). A favourite's post is
 * drawn among those existing then, weighed (positives + 0.05) / (age_hours + 2)^1.8: a law
 * "hot" reads directly, and a mix of log-engagement and recency only approximately.
 */
function hotWorld(seed: number) {
  const random = mulberry32(seed);
  const start = Date.UTC(2026, 0, 1);
  const posts: EvalPost[] = [];
  const positives: number[] = [];
  const interactions: EvalInteraction[] = [];
  for (let h = 0; h < 24 * 6; h++) {
    for (let j = 0; j < 3; j++) {
      const n = posts.length;
      posts.push(evalPost(`p${n}`, start + (h + random()) * HOUR, { accountId: `a${n % 60}`, accountUsername: `a${n % 60}`, text: '' }));
      positives.push(0);
    }
    for (let e = 0; e < 200; e++) {
      const atMs = start + (h + random()) * HOUR;
      const weights = posts.map((p, i) =>
        p.createdAtMs < atMs ? (positives[i]! + 0.05) / Math.pow((atMs - p.createdAtMs) / HOUR + 2, 1.8) : 0,
      );
      let r = random() * weights.reduce((a, b) => a + b, 0);
      let i = 0;
      while (i < weights.length - 1 && r > weights[i]!) r -= weights[i++]!;
      positives[i]! += 1;
      const userId = h >= 96 && random() < 0.25 ? `n${Math.floor(random() * 1500)}` : `u${Math.floor(random() * 900)}`;
      interactions.push({ userId, postId: posts[i]!.id, action: 'favorite', atMs });
    }
  }
  return buildDataset(posts, interactions);
}

describe('the cold start the fit chooses', () => {
  it('offers "hot" beside every share, and every share beside "hot"', () => {
    expect(neighbourColdShares(0.5)).toEqual([0.5, 0.25, 0.75, HOT_COLD_START]);
    expect(neighbourColdShares(0)).toEqual([0, 0.25, HOT_COLD_START]);
    expect(neighbourColdShares(HOT_COLD_START)).toEqual([HOT_COLD_START, 0, 0.25, 0.5, 0.75]);
    // Judged by the proxy (too few newcomers), "hot" is neither offered nor left.
    expect(neighbourColdShares(0.5, false)).toEqual([0.5, 0.25, 0.75]);
    expect(neighbourColdShares(HOT_COLD_START, false)).toEqual([HOT_COLD_START]);
    expect(rankingOf({ ...SHIPPED_RANKING_DEFAULT, cold_start_recency: HOT_COLD_START }).options.coldStartEngagement).toBe('hot');
  });

  it('moves a community whose attention follows "hot" to it, judged on its own newcomers, on an interval above 0', async () => {
    const result = await fitRankingDefault(hotWorld(1), SHIPPED_RANKING_DEFAULT, { maxUsers: 300 });
    expect(result.chosen.cold_start_recency).toBe(HOT_COLD_START);
    const cold = result.evidence.cold!;
    // 300 of the newcomers (maxUsers), at least minNewcomers (200): they are the judges.
    expect(cold).toMatchObject({ judged_on: 'newcomers', users: 300 });
    expect(cold.difference!.ci_low).toBeGreaterThan(0);
    const byShape = new Map(cold.points.map((p) => [p.cold_start_recency, p.ndcg]));
    for (const [shape, ndcg] of byShape) if (shape !== HOT_COLD_START) expect(byShape.get(HOT_COLD_START)!).toBeGreaterThan(ndcg);
    expect(result.summary).toMatch(/cold start recency 0\.5 -> hot \(nDCG@20 of 300 newcomers /);
  }, 60_000);

  it('keeps the move when it is held against what is served: the cold start on its own judges, not on the warm points’ users', async () => {
    // Served = the search's start (recsvc eval --fit, the agent before its first fit): the warm axes
    // did not move, and the few newcomers among the sampled users could not tell the cold starts apart.
    const split = temporalSplit(hotWorld(1), { testFraction: 0.1 });
    const result = await fitSteps(split, SHIPPED_RANKING_DEFAULT, 3, { maxUsers: 300, served: SHIPPED_RANKING_DEFAULT });
    expect(result.status).toBe('applied');
    expect(result.chosen.cold_start_recency).toBe(HOT_COLD_START);
  }, 60_000);

  it('judges on every sampled user ranked as a newcomer when the newcomers are too few, among the shares only', async () => {
    const result = await fitRankingDefault(hotWorld(1), SHIPPED_RANKING_DEFAULT, { maxUsers: 300, minNewcomers: 301 });
    expect(result.evidence.cold).toMatchObject({ judged_on: 'users as newcomers', users: result.evidence.users });
    expect(result.evidence.cold!.points.map((p) => p.cold_start_recency)).toEqual([0.5, 0.25, 0.75]);
    expect(result.chosen.cold_start_recency).not.toBe(HOT_COLD_START);
    expect(result.summary).toMatch(/cold start recency 0\.5 (kept|-> \S+) \(nDCG@20 as newcomers /);
  }, 60_000);

  it('does not take returning users whose history began before the data (a bounded read) for newcomers', async () => {
    const world = hotWorld(1);
    // The same world read as the agent reads a busy instance: the late users had interacted before its window.
    const late = new Set(world.interactions.filter((i) => i.userId.startsWith('n')).map((i) => i.userId));
    const bounded = buildDataset(world.posts.values(), world.interactions, late);
    const result = await fitRankingDefault(bounded, SHIPPED_RANKING_DEFAULT, { maxUsers: 300 });
    // No newcomer is left: every sampled user ranked as a newcomer judges, among the shares only.
    expect(result.evidence.cold).toMatchObject({ judged_on: 'users as newcomers', users: result.evidence.users });
    expect(result.evidence.cold!.points.map((p) => p.cold_start_recency)).not.toContain(HOT_COLD_START);
  }, 60_000);

  it('keeps a pinned "hot" on the same world: nothing beats it beyond doubt', async () => {
    const pinned: RankingDefault = { ...SHIPPED_RANKING_DEFAULT, cold_start_recency: HOT_COLD_START };
    const result = await fitRankingDefault(hotWorld(1), pinned, { maxUsers: 300 });
    expect(result.chosen.cold_start_recency).toBe(HOT_COLD_START);
    expect(result.summary).toMatch(/cold start hot kept/);
  }, 60_000);
});

/**
 * The "hot" cold start (RankingOptions.coldStartShape `hot`): positives / (age in hours + 2)^1.8,
 * worked by hand on a tiny pool, and a newcomer's list equal to `recsvc eval`'s "hot" baseline
 * (src/evaluation/baselines.ts, its own implementation over the evaluation's counts) on a
 * synthetic feed replayed to several instants.
 */
import { describe, expect, it } from 'vitest';
import { baselines } from '../../../src/evaluation/baselines.js';
import { buildDataset, temporalSplit } from '../../../src/evaluation/dataset.js';
import { EvalState } from '../../../src/evaluation/eval-context.js';
import { generateSynthetic, generatorOptions } from '../../../src/evaluation/generate.js';
import { interactionOf, postsOfStatus } from '../../../src/evaluation/import-format.js';
import { CandidateIndex, DEFAULT_ALGORITHM_CONFIG, emptyProfile, hotFeature, rankCandidates } from '../../../src/ranking/index.js';
import { rankingOf, SHIPPED_RANKING_DEFAULT } from '../../../src/ranking/ranking-default.js';
import { HOUR, NOW, post } from '../ranking/fixtures.js';

const hotOptions = rankingOf({ ...SHIPPED_RANKING_DEFAULT, cold_start_shape: 'hot' }).options;

describe('the hot cold start', () => {
  it('scores positives / (age + 2)^1.8 squashed into [0, 1), where the blend orders the same pool otherwise', () => {
    const index = new CandidateIndex([
      // 400 positives, 30 h old: 400 / 32^1.8 = 0.781.
      post('old', { createdAtMs: NOW - 30 * HOUR, favourites: 380, reblogs: 10, bookmarks: 10 }),
      // 20 positives, 10 h old: 20 / 12^1.8 = 0.228.
      post('middle', { createdAtMs: NOW - 10 * HOUR, favourites: 20 }),
      // 2 positives, 1 h old: 2 / 3^1.8 = 0.276.
      post('new', { createdAtMs: NOW - HOUR, favourites: 1, replies: 1 }),
      // Nothing yet, and the newest: 0, as by "hot".
      post('fresh', { createdAtMs: NOW - HOUR / 60 }),
    ]);
    const newcomer = emptyProfile('newcomer');
    const items = rankCandidates(index, newcomer, DEFAULT_ALGORITHM_CONFIG, { ...hotOptions, limit: 10, nowMs: NOW });
    expect(items.map((i) => i.post.id)).toEqual(['old', 'new', 'middle', 'fresh']);
    const hot: Record<string, number> = { old: 400 / 32 ** 1.8, middle: 20 / 12 ** 1.8, new: 2 / 3 ** 1.8, fresh: 0 };
    for (const item of items) {
      expect(item.score).toBeCloseTo(hot[item.post.id]! / (1 + hot[item.post.id]!), 12);
      expect(item.coldStart).toBe(true);
    }
    // The shipped blend (0.5 log1p(positives) over the pool's maximum + 0.5 recency at 8 h): the
    // new post 0.092 + 0.459, the old 0.5 + 0.037, the middle 0.254 + 0.210.
    const blend = rankCandidates(index, newcomer, DEFAULT_ALGORITHM_CONFIG, {
      ...rankingOf(SHIPPED_RANKING_DEFAULT).options,
      limit: 10,
      nowMs: NOW,
    });
    expect(blend.map((i) => i.post.id)).toEqual(['new', 'old', 'middle', 'fresh']);
    // No positive: 0 at any age; a post from the future counts as brand new (age 0).
    expect(hotFeature(0, 5 * HOUR)).toBe(0);
    expect(hotFeature(3, -HOUR)).toBeCloseTo(3 / 2 ** 1.8 / (1 + 3 / 2 ** 1.8), 12);
  });

  it("ranks a newcomer exactly as eval's hot baseline does, at several instants of a replayed feed", () => {
    const data = generateSynthetic(generatorOptions('feed', { users: 300, authors: 60, posts: 1200, seed: 11 }));
    const dataset = buildDataset(
      data.statuses.flatMap((s) => postsOfStatus(s)),
      data.interactions.map((i) => interactionOf(i)),
    );
    const split = temporalSplit(dataset);
    const state = new EvalState(split);
    const [hot] = baselines(state, ['hot']);
    const newcomers = split.users.filter((u) => u.history.length === 0).slice(0, 8);
    expect(newcomers.length).toBeGreaterThanOrEqual(5);
    let compared = 0;
    for (const user of newcomers) {
      state.advanceTo(user.atMs);
      const want = hot!.rank(user, 20);
      // No cap per author: the baseline has none.
      const got = rankCandidates(state.index, emptyProfile(user.userId), DEFAULT_ALGORITHM_CONFIG, {
        ...hotOptions,
        perAuthorCap: 1000,
        limit: 20,
        nowMs: state.now,
      }).map((item) => item.post.reblogOfId ?? item.post.id);
      expect(want).toHaveLength(20);
      expect(got).toEqual(want);
      compared += 1;
    }
    expect(compared).toBe(newcomers.length);
  });
});

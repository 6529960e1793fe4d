import { describe, expect, it } from 'vitest';
import { baselines } from '../../../src/evaluation/baselines.js';
import { invertSpd } from '../../../src/ranking/spd-inverse.js';
import { fitItemModel, ModelledCoEngagement } from '../../../src/ranking/item-model.js';
import { buildDataset, temporalSplit, validationSplit, type EvalInteraction, type EvalPost } from '../../../src/evaluation/dataset.js';
import { EvalState } from '../../../src/evaluation/eval-context.js';
import { evalGate } from '../../../src/evaluation/eval-gate.js';
import { evalSummaryMarkdown } from '../../../src/evaluation/eval-text.js';
import { evaluate, type Evaluation } from '../../../src/evaluation/evaluate.js';
import { generateSynthetic, generatorOptions } from '../../../src/evaluation/generate.js';
import { postsOfStatus, interactionOf } from '../../../src/evaluation/import-format.js';
import { rankingCandidate } from '../../../src/evaluation/rankers.js';
import { tuneWeights, simplex } from '../../../src/evaluation/tune.js';
import { buildUserProfile, collaborativeMatches, rankCandidates } from '../../../src/ranking/index.js';
import { CollaborativeCandidates } from '../../../server/ranking-state/collaborative-candidates.js';
import { DEFAULT_ALGORITHM_CONFIG, SHIPPED_RANKING_OPTIONS } from '../../../src/ranking/ranking.types.js';
import { candidatePool } from '../../../server/ranking-state/ranking-state.service.js';
import { evalPost } from '../../helpers/eval-post.js';

const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

function post(id: string, hoursAfter: number, extra: Partial<EvalPost> = {}): EvalPost {
  return evalPost(id, T0 + hoursAfter * H, {
    accountId: `a${id}`,
    accountUsername: `u${id}`,
    text: `post ${id} about gardening`,
    tags: ['gardening'],
    ...extra,
  });
}

function engage(userId: string, postId: string, hoursAfter: number): EvalInteraction {
  return { userId, postId, action: 'favorite', atMs: T0 + hoursAfter * H };
}

describe('temporal split', () => {
  const posts = [
    post('1', 0),
    post('2', 1),
    post('3', 2),
    post('4', 11),
    post('5', 3, { visibility: 'private' }),
    post('6', 4, { reblogOfId: '3' }),
  ];
  const interactions = [
    engage('ann', '1', 2),
    engage('bob', '1', 3),
    engage('bob', '2', 4.5),
    engage('ann', '1', 5), // a repeat: dropped
    engage('ann', '9', 6), // unknown post: dropped
    // The cutoff falls at 10 h (given).
    engage('ann', '3', 10.5), // ann comes back at 10.5 h
    engage('ann', '4', 12), // created after her instant: not a target
    { ...engage('ann', '1', 13), action: 'reblog' as const }, // engaged before: not a target
    engage('ann', '2', 14),
    engage('cat', '5', 10.2), // private: not a target; cat's instant is 10.2 h
    engage('cat', '6', 15), // a reblog of 3: counts as 3
  ];
  const dataset = buildDataset(posts, interactions);
  const split = temporalSplit(dataset, { cutoffMs: T0 + 10 * H });

  it('keeps the first of each (user, post, action) on known posts, in time order', () => {
    expect(dataset.dropped).toEqual({ unknownPost: 1, duplicate: 1 });
    expect(dataset.interactions.map((i) => i.atMs)).toEqual([...dataset.interactions.map((i) => i.atMs)].sort((a, b) => a - b));
  });

  it('asks each user at their first interaction after the cutoff, for posts that existed, may be recommended and are new to them', () => {
    expect(split.train).toHaveLength(3);
    expect(split.users.map((u) => [u.userId, (u.atMs - T0) / H, u.history.length, [...u.targets].sort()])).toEqual([
      ['cat', 10.2, 0, ['3']],
      ['ann', 10.5, 1, ['2', '3']],
    ]);
  });

  it('asks everyone at the cutoff with --ask-at cutoff: the targets are what existed then', () => {
    const atCutoff = temporalSplit(dataset, { cutoffMs: T0 + 10 * H, askAt: 'cutoff' });
    // Every user at 10 h; ann's post 4 (created at 11 h) is no target either way.
    expect(atCutoff.users.map((u) => [u.userId, (u.atMs - T0) / H, [...u.targets].sort()])).toEqual([
      ['ann', 10, ['2', '3']],
      ['cat', 10, ['3']],
    ]);
    // A post created between the cutoff and a user's own instant is a target only when asked at that instant.
    const late = buildDataset([...posts, post('7', 10.3)], [...interactions, engage('ann', '7', 16)]);
    const targetsOf = (askAt: 'cutoff' | 'first-interaction'): string[] => [
      ...temporalSplit(late, { cutoffMs: T0 + 10 * H, askAt }).users.find((u) => u.userId === 'ann')!.targets,
    ];
    expect(targetsOf('first-interaction')).toContain('7');
    expect(targetsOf('cutoff')).not.toContain('7');
  });

  it('validates inside the training part only', () => {
    const val = validationSplit(split, 0.34);
    expect(val.endMs).toBe(split.cutoffMs);
    expect(val.train.every((i) => i.atMs < val.cutoffMs)).toBe(true);
    expect(val.users.every((u) => u.atMs < split.cutoffMs)).toBe(true);
  });

  it('replays posts and counts up to each instant for the baselines', () => {
    const state = new EvalState(split);
    const [popularity, recent, hot, newest] = baselines(state, ['popularity', 'recent_6h', 'hot', 'newest']);
    const cat = split.users[0]!;
    state.advanceTo(cat.atMs);
    // At 10.2 h: post 1 has 2 engagements (2 h, 3 h), post 2 one (4.5 h); 4 does not exist yet.
    expect(popularity!.rank(cat, 3)).toEqual(['1', '2', '3']);
    // Only 4.5 h (post 2) is within the 6 hours before 10.2 h.
    expect(recent!.rank(cat, 1)).toEqual(['2']);
    // hot: 2/(10.2 + 2)^1.8 = 0.022 vs 1/(9.2 + 2)^1.8 = 0.013.
    expect(hot!.rank(cat, 2)).toEqual(['1', '2']);
    expect(newest!.rank(cat, 2)).toEqual(['3', '2']);
    const ann = split.users[1]!;
    state.advanceTo(ann.atMs);
    // ann engaged with 1 before: left out.
    expect(popularity!.rank(ann, 2)).toEqual(['2', '3']);
  });
});

describe('the ranking candidate', () => {
  const data = generateSynthetic(generatorOptions('feed', { users: 300, authors: 60, posts: 1200, seed: 11 }));
  const dataset = buildDataset(
    data.statuses.flatMap((s) => postsOfStatus(s)),
    data.interactions.map((i) => interactionOf(i)),
  );
  const split = temporalSplit(dataset);

  it("ranks exactly what the server's pool and profile rank at the user's instant", () => {
    const state = new EvalState(split);
    const candidate = rankingCandidate('default', DEFAULT_ALGORITHM_CONFIG, state, SHIPPED_RANKING_OPTIONS);
    const user = split.users.find((u) => u.history.length >= 5)!;
    state.advanceTo(user.atMs);
    const got = candidate.rank(user, 20);
    // The server's own pool builder over the posts of that instant with their counts then.
    const counts = new Map<string, number>();
    for (const i of dataset.interactions)
      if (i.atMs < user.atMs && i.action === 'favorite') counts.set(i.postId, (counts.get(i.postId) ?? 0) + 1);
    const reblogs = new Map<string, number>();
    for (const i of dataset.interactions)
      if (i.atMs < user.atMs && i.action === 'reblog') reblogs.set(i.postId, (reblogs.get(i.postId) ?? 0) + 1);
    const posts = [...dataset.posts.values()]
      .filter((p) => p.createdAtMs <= user.atMs)
      .map((p) => ({ ...p, favourites: counts.get(p.id) ?? 0, reblogs: reblogs.get(p.id) ?? 0 }));
    const pool = candidatePool(posts);
    // A reload's counts are undated: the server then replays its newest stored interactions' times.
    for (const i of dataset.interactions) if (i.atMs < user.atMs) pool.redate(i.postId, i.action, i.atMs);
    const profile = buildUserProfile(
      {
        userId: user.userId,
        interactions: user.history.map((i) => ({ post: dataset.posts.get(i.postId)!, action: i.action, createdAtMs: i.atMs })),
      },
      pool,
    );
    const want = rankCandidates(pool, profile, DEFAULT_ALGORITHM_CONFIG, { ...SHIPPED_RANKING_OPTIONS, limit: 20, nowMs: user.atMs }).map(
      (item) => item.post.id,
    );
    expect(got).toHaveLength(20);
    expect(got).toEqual(want);
  });

  it('builds the item model at the cutoff from the training pairs only when asked, and ranks with it beside the state', () => {
    const plain = new EvalState(split);
    expect(plain.itemModel).toBeUndefined();
    expect(plain.collaborative).toBe(plain.coEngagement);
    const state = new EvalState(split, {}, {}, { minPairs: 0, maxItems: 300 });
    const model = state.itemModel!;
    expect(model.size).toBe(300);
    // Built from the pairs before the cutoff: exactly the pure fit of the training interactions.
    expect(model.data).toEqual(fitItemModel(split.train, { minPairs: 0, maxItems: 300 }).data);
    expect(state.collaborative).toBeInstanceOf(ModelledCoEngagement);
    const config = { weights: { author_preference: 0, content_engagement: 0, recency: 0, semantic_similarity: 0, collaborative: 1 } };
    const user = split.users.find((u) => u.history.some((i) => model.has(i.postId)))!;
    state.advanceTo(user.atMs);
    const got = rankingCandidate('collaborative', config, state).rank(user, 20);
    const want = rankCandidates(state.index, state.profile(user), config, {
      limit: 20,
      nowMs: state.now,
      coEngagement: state.collaborative,
    });
    expect(got).toEqual(want.map((item) => item.post.reblogOfId ?? item.post.id));
    expect(new EvalState(split, {}, {}, { minPairs: split.train.length + 1 }).itemModel).toBeUndefined();
  });

  it('fetches and holds the co-engaged posts outside the pool as the server does, for a ranking that weighs them', () => {
    // A pool of the 100 newest posts: most co-engaged posts are outside it.
    const pool = { maxRecent: 100, maxPopular: 0 };
    const config = { weights: { author_preference: 0, content_engagement: 0, recency: 0, semantic_similarity: 0, collaborative: 1 } };
    const user = split.users.filter((u) => u.history.length >= 5)[3]!;
    const state = new EvalState(split, pool);
    state.advanceTo(user.atMs);
    const got = rankingCandidate('collaborative', config, state).rank(user, 20);
    expect(got.filter((id) => state.index.isCollaborative(id)).length).toBeGreaterThan(0);
    // The server's own path on the same replayed state: its fetch rule, the posts read, then the ranking.
    const served = new EvalState(split, pool);
    served.advanceTo(user.atMs);
    const profile = served.profile(user);
    const matches = collaborativeMatches(served.collaborative, profile.recentPosts!);
    const candidates = new CollaborativeCandidates({ index: served.index });
    const absent = candidates.missing(profile.recentPosts!, matches);
    const found = absent.map((id) => dataset.posts.get(id)!).filter((p) => p.createdAtMs <= user.atMs);
    candidates.add(absent, found);
    const want = rankCandidates(served.index, profile, config, { limit: 20, nowMs: user.atMs, coEngagement: served.collaborative });
    expect(got).toEqual(want.map((item) => item.post.reblogOfId ?? item.post.id));
    // Without the weight nothing is fetched.
    const plain = new EvalState(split, pool);
    plain.advanceTo(user.atMs);
    rankingCandidate('default', DEFAULT_ALGORITHM_CONFIG, plain).rank(user, 20);
    expect(plain.index.collaborativeSize).toBe(0);
  });

  it('fetches once per visit: every candidate ranked for a user sees what one served ranking would', () => {
    const pool = { maxRecent: 100, maxPopular: 0 };
    const first = { weights: { author_preference: 0, content_engagement: 0, recency: 0, semantic_similarity: 0, collaborative: 1 } };
    const second = {
      weights: { author_preference: 0.2, content_engagement: 0.3, recency: 0.2, semantic_similarity: 0, collaborative: 0.3 },
    };
    // A user whose co-engaged posts outside the pool are more than one fetch takes (some are left after it).
    const user = split.users.find((u) => {
      if (u.history.length < 5) return false;
      const probe = new EvalState(split, pool);
      probe.advanceTo(u.atMs);
      rankingCandidate('first', first, probe).rank(u, 20);
      const matches = collaborativeMatches(probe.collaborative, probe.profile(u).recentPosts!);
      return [...matches.keys()].some((id) => !probe.index.has(id));
    })!;
    expect(user).toBeDefined();
    const state = new EvalState(split, pool);
    state.advanceTo(user.atMs);
    rankingCandidate('first', first, state).rank(user, 20);
    const held = state.index.collaborativeSize;
    const got = rankingCandidate('second', second, state).rank(user, 20);
    // Ranked second, it fetched nothing more (it used to fetch the next 50 co-engaged posts)…
    expect(state.index.collaborativeSize).toBe(held);
    // …and ranks as it does alone.
    const alone = new EvalState(split, pool);
    alone.advanceTo(user.atMs);
    expect(got).toEqual(rankingCandidate('second', second, alone).rank(user, 20));
  });

  it('counts the users without history who return from before a bounded read, and says so in its reports', () => {
    const newcomers = split.users.filter((u) => u.history.length === 0);
    expect(newcomers.length).toBeGreaterThan(3);
    // As loadFitData names them for --max-interactions: three of them interacted before the data.
    const returning = newcomers.slice(0, 3).map((u) => u.userId);
    const bounded = temporalSplit(buildDataset(dataset.posts.values(), dataset.interactions, returning));
    const state = new EvalState(bounded);
    const evaluation = evaluate(state, [rankingCandidate('default', DEFAULT_ALGORITHM_CONFIG, state)], { samples: 10 });
    expect(evaluation.data.returning_without_history).toBe(3);
    expect(evalSummaryMarkdown(evaluation, undefined, 'bounded')).toContain(
      `### Users without history (${newcomers.length}), of them 3 returning from before the data read (not newcomers)`,
    );
    const whole = new EvalState(split);
    expect(
      evaluate(whole, [rankingCandidate('default', DEFAULT_ALGORITHM_CONFIG, whole)], { samples: 10 }).data.returning_without_history,
    ).toBe(0);
  });

  it('reports groups, paired comparisons and the same numbers for the same seed', () => {
    const run = (seed: number): Evaluation => {
      const state = new EvalState(split);
      return evaluate(
        state,
        [rankingCandidate('default', DEFAULT_ALGORITHM_CONFIG, state), ...baselines(state, ['popularity', 'hot', 'item_knn'])],
        {
          samples: 100,
          seed,
        },
      );
    };
    const a = run(1);
    expect(a.groups.map((g) => g.group)).toEqual(['with_history', 'without_history', 'all']);
    // Progress: one call per evaluated user, counting up to the total (recsvc eval's progress line).
    const calls: [number, number][] = [];
    const state = new EvalState(split);
    const sampled = evaluate(state, [rankingCandidate('default', DEFAULT_ALGORITHM_CONFIG, state)], {
      samples: 10,
      maxUsers: 40,
      onUser: (done, total) => calls.push([done, total]),
    });
    expect(calls).toEqual(Array.from({ length: sampled.data.evaluated_users }, (_, i) => [i + 1, sampled.data.evaluated_users]));
    expect(sampled.data.evaluated_users).toBe(40);
    const withHistory = a.groups[0]!;
    const withoutHistory = a.groups[1]!;
    expect(withHistory.users + withoutHistory.users).toBe(a.data.evaluated_users);
    expect(withHistory.rankers.map((r) => r.name)).toEqual(['default', 'popularity', 'hot', 'item_knn']);
    // kNN has nothing to say about users without history: not reported for them.
    expect(withoutHistory.rankers.map((r) => r.name)).toEqual(['default', 'popularity', 'hot']);
    for (const r of withHistory.rankers) {
      for (const e of Object.values(r.metrics)) {
        expect(e.ci_low).toBeLessThanOrEqual(e.value + 1e-12);
        expect(e.ci_high).toBeGreaterThanOrEqual(e.value - 1e-12);
      }
    }
    const vsHot = withHistory.comparisons.find((c) => c.against === 'hot' && c.metric === 'ndcg')!;
    const byName = new Map(withHistory.rankers.map((r) => [r.name, r.metrics.ndcg.value]));
    expect(vsHot.value).toBeCloseTo(byName.get('default')! - byName.get('hot')!, 12);
    expect(run(1)).toEqual(a);
    expect(run(2).groups[0]!.rankers[0]!.metrics.ndcg.ci_low).not.toBe(withHistory.rankers[0]!.metrics.ndcg.ci_low);
  });

  it('tunes the weights into a variant experiments accept, never worse than the default on validation, giving the event loop turns', async () => {
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 1);
    const tuned = await tuneWeights(split, { maxUsers: 60, minStep: 0.1 });
    clearInterval(ticker);
    // A search that never yields would starve a server's or a test worker's event loop for minutes.
    expect(turns).toBeGreaterThan(10);
    const w = tuned.variant.algorithm_config.weights;
    expect(Object.values(w).reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
    expect(Object.keys(w).sort()).toEqual(['author_preference', 'collaborative', 'content_engagement', 'recency', 'semantic_similarity']);
    expect(tuned.validation.tuned_ndcg).toBeGreaterThanOrEqual(tuned.validation.default_ndcg);
    expect(tuned.variant).toMatchObject({ name: 'tuned', is_control: false, traffic_allocation: 50 });
  });
});

describe('search and linear algebra', () => {
  it('enumerates the simplex grid', () => {
    const grid = simplex(4, 4);
    // Compositions of 4 into 4 parts: C(7, 3) = 35.
    expect(grid).toHaveLength(35);
    for (const p of grid) expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('inverts a symmetric positive definite matrix', () => {
    const n = 6;
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i * n + j] = (i === j ? n + 2 : 0) + 1 / (1 + i + j);
    const inv = invertSpd(a, n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let sum = 0;
        for (let k = 0; k < n; k++) sum += a[i * n + k]! * inv[k * n + j]!;
        expect(sum).toBeCloseTo(i === j ? 1 : 0, 12);
      }
    }
    expect(() => invertSpd(Float64Array.from([1, 2, 2, 1]), 2)).toThrow(/positive definite/);
  });
});

describe('the gate', () => {
  const evaluation = (users: number, diffs: Array<[number, number, number]>): Evaluation =>
    ({
      k: 20,
      groups: [
        {
          group: 'with_history',
          users,
          best_baseline: 'b0',
          rankers: diffs.map((_, i) => ({ name: `b${i}`, kind: 'baseline' })),
          comparisons: diffs.map(([value, low, high], i) => ({
            candidate: 'default',
            against: `b${i}`,
            metric: 'ndcg',
            value,
            ci_low: low,
            ci_high: high,
          })),
        },
        { group: 'without_history', users: 0, best_baseline: null, rankers: [], comparisons: [] },
      ],
    }) as unknown as Evaluation;

  it('passes when every interval clears the margin, fails when one is wholly below, else is inconclusive', () => {
    expect(evalGate(evaluation(100, [[0.05, 0.01, 0.09]])).verdict).toBe('pass');
    expect(
      evalGate(
        evaluation(100, [
          [0.05, 0.01, 0.09],
          [-0.05, -0.09, -0.01],
        ]),
      ).verdict,
    ).toBe('fail');
    expect(evalGate(evaluation(100, [[0.01, -0.02, 0.04]])).cases[0]).toMatchObject({
      verdict: 'inconclusive',
      reason: 'interval spans threshold',
    });
    expect(evalGate(evaluation(100, [[0.01, -0.02, 0.04]]), { margin: 0.03 }).verdict).toBe('pass');
    expect(evalGate(evaluation(10, [[0.05, 0.01, 0.09]])).cases[0]).toMatchObject({ verdict: 'inconclusive', reason: 'underpowered' });
    // The group without users is left out; nothing to compare at all is inconclusive.
    expect(evalGate(evaluation(100, [[0.05, 0.01, 0.09]])).cases).toHaveLength(1);
    expect(evalGate(evaluation(100, [])).verdict).toBe('inconclusive');
  });
});

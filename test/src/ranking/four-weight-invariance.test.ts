/**
 * The fifth weight leaves four-weight configs alone (decisions.md, "A fifth weight"): every
 * experiment created before it ranks exactly as before. The reference is a golden file the
 * code from BEFORE the collaborative feature wrote (test/fixtures/ranking/, its generator
 * and provenance there); today's ranking of the same seeded scenario must equal it to the
 * last bit — also with a co-engagement state full of pairs and collaborative candidates held
 * beside the pool, which a four-weight config must neither rank nor count.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyProfile, rankCandidates, replayCoEngagement, type CoEngagementEvent } from '../../../src/ranking/index.js';
import { createRandom, randomInt } from '../../../src/random.js';
import { HOUR, NOW, post } from './fixtures.js';
import { scenario, SCENARIO_CONFIGS, scenarioRankings, type GoldenItem } from './four-weight-scenario.js';

const golden = JSON.parse(readFileSync(new URL('../../fixtures/ranking/four-weight-golden.json', import.meta.url), 'utf8')) as {
  provenance: string;
  rankings: Record<string, GoldenItem[]>;
};

describe('a four-weight config ranks exactly as before the collaborative feature', () => {
  it('equals the golden lists written by the code before it, bit for bit', () => {
    const { index, profiles } = scenario();
    expect(golden.provenance).toMatch(/before the collaborative feature/);
    expect(Object.keys(golden.rankings)).toHaveLength(64);
    expect(scenarioRankings(index, profiles)).toEqual(golden.rankings);
  });

  it('still equals them with a co-engagement state and collaborative candidates held', () => {
    const { posts, index, profiles } = scenario();
    const random = createRandom(99);
    // Plenty of pairs among pooled posts and with posts from outside the pool.
    const events: CoEngagementEvent[] = Array.from({ length: 3000 }, () => ({
      userId: `u${randomInt(random, 16)}`,
      postId: random() < 0.7 ? posts[randomInt(random, posts.length)]!.id : `old${randomInt(random, 50)}`,
    }));
    const coEngagement = replayCoEngagement(events);
    index.addCollaborative(
      Array.from({ length: 50 }, (_, i) =>
        post(`old${i}`, {
          accountId: `a${i % 40}`,
          text: 'rust garden vintage',
          tags: ['rust'],
          createdAtMs: NOW - 900 * HOUR,
          favourites: 5000,
        }),
      ),
    );
    for (const profile of profiles) profile.recentPosts = posts.slice(0, 5).map((p) => p.id);
    expect(index.collaborativeSize).toBe(50);
    expect(scenarioRankings(index, profiles, { coEngagement })).toEqual(golden.rankings);
  });

  it('still equals them, newcomers included, when the posts carry bookmarks (only the shipped cold start reads them)', () => {
    const { posts, index, profiles } = scenario();
    const newcomer = emptyProfile('newcomer');
    const newcomerLists = (): string[][] =>
      Object.values(SCENARIO_CONFIGS).map((config) =>
        rankCandidates(index, newcomer, config, { limit: 20, nowMs: NOW }).map((item) => `${item.post.id} ${item.score}`),
      );
    const before = newcomerLists();
    const random = createRandom(7);
    // Bookmarks, many on some posts: the positives count and its maximum change, the weighted engagement does not.
    for (const p of posts) index.updateCounts(p.id, { ...p, bookmarks: randomInt(random, 3) === 0 ? 500 : randomInt(random, 20) });
    expect(index.positivesMax()).toBeGreaterThanOrEqual(Math.log1p(500));
    expect(scenarioRankings(index, profiles)).toEqual(golden.rankings);
    expect(newcomerLists()).toEqual(before);
  });
});

/**
 * The demo data set plants the evaluation generator's structure (src/evaluation/synthetic-structure.ts):
 * what was planted is what the service's own signals find in it, the same whatever the anchor.
 */
import { describe, expect, it } from 'vitest';
import { SYNTHETIC_TOPICS } from '../../../src/evaluation/synthetic-content.js';
import { replayCoEngagement } from '../../../src/ranking/co-engagement.js';
import { generateDemoData, type DemoData } from '../../../server/demo/demo-generator.js';

const DAY = 86_400_000;
const ANCHOR = Date.parse('2026-03-01T12:00:00.000Z');
const SIZES = { authors: 60, posts: 1500, users: 400, interactions: 12_000, days: 14 };
const data = generateDemoData(SIZES, ANCHOR);

function byUser(d: DemoData): Map<string, DemoData['interactions']> {
  const out = new Map<string, DemoData['interactions']>();
  for (const i of d.interactions) out.set(i.userId, [...(out.get(i.userId) ?? []), i]);
  return out;
}

describe('the demo data set', () => {
  it('has exactly the sizes asked for, users user1 … userN', () => {
    expect([data.authors.length, data.posts.length, data.users.length, data.interactions.length]).toEqual([60, 1500, 400, 12_000]);
    expect(data.users[0]).toBe('user1');
    expect(data.users.at(-1)).toBe('user400');
  });

  it('plants the same users, communities, favourites and choices whatever the anchor (its times end there)', () => {
    const later = generateDemoData(SIZES, ANCHOR + 7.3 * 3_600_000);
    expect([...later.truth.favouriteAuthors]).toEqual([...data.truth.favouriteAuthors]);
    expect([...later.truth.userCommunity]).toEqual([...data.truth.userCommunity]);
    expect(later.interactions.map((i) => `${i.userId} ${i.postIndex} ${i.action}`)).toEqual(
      data.interactions.map((i) => `${i.userId} ${i.postIndex} ${i.action}`),
    );
    expect(later.posts.map((p) => p.text)).toEqual(data.posts.map((p) => p.text));
    expect(later.posts[0]!.createdAtMs - data.posts[0]!.createdAtMs).toBe(7.3 * 3_600_000);
    expect(generateDemoData(SIZES, ANCHOR, 7).truth.favouriteAuthors).not.toEqual(data.truth.favouriteAuthors);
  });

  it('spreads posts and interactions over the days before the anchor, each interaction after its post', () => {
    const day = (t: number): number => Math.floor((ANCHOR - t) / DAY);
    expect(new Set(data.posts.map((p) => day(p.createdAtMs))).size).toBe(14);
    expect(new Set(data.interactions.map((i) => day(i.createdAtMs))).size).toBeGreaterThanOrEqual(13);
    for (const i of data.interactions) {
      expect(Number.isInteger(i.createdAtMs) && i.createdAtMs < ANCHOR).toBe(true);
      expect(i.createdAtMs).toBeGreaterThanOrEqual(data.posts[i.postIndex]!.createdAtMs);
    }
  });

  it("tags and words each post with its topic's, from the one vocabulary of generated data", () => {
    const topics = new Map(SYNTHETIC_TOPICS.map((t) => [t.name, t]));
    for (const post of data.posts.slice(0, 200)) {
      const topic = topics.get(post.topic)!;
      expect(post.tags.every((tag) => topic.tags.includes(tag))).toBe(true);
      expect(post.text.split(' ').some((word) => topic.words.includes(word))).toBe(true);
    }
  });

  it("recovers the planted communities in the collaborative feature's co-engagement", () => {
    const coEngagement = replayCoEngagement(
      [...data.interactions].sort((a, b) => a.createdAtMs - b.createdAtMs).map((i) => ({ userId: i.userId, postId: i.postId })),
    );
    const community = new Map(data.posts.map((p) => [p.id, p.community]));
    let same = 0;
    let pairs = 0;
    for (const postId of coEngagement.postIds()) {
      for (const n of coEngagement
        .neighbours(postId)
        .filter((x) => x.count >= 2)
        .slice(0, 10)) {
        pairs += 1;
        if (community.get(n.id) === community.get(postId)) same += 1;
      }
    }
    expect(pairs).toBeGreaterThan(500);
    // Eight communities: by chance one pair in eight.
    expect(same / pairs).toBeGreaterThan(0.3);
  });

  it("makes a planted favourite the author an active user engages with most, and the user's community most of their posts", () => {
    const authorOf = (i: DemoData['interactions'][number]): string => data.authors[data.posts[i.postIndex]!.authorIndex]!.username;
    const active = [...byUser(data)].filter(([, list]) => list.length >= 30);
    expect(active.length).toBeGreaterThan(50);
    let favourite = 0;
    let community = 0;
    let total = 0;
    for (const [user, list] of active) {
      const counts = new Map<string, number>();
      for (const i of list) counts.set(authorOf(i), (counts.get(authorOf(i)) ?? 0) + 1);
      const top = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
      if (data.truth.favouriteAuthors.get(user)!.includes(top)) favourite += 1;
      for (const i of list) {
        total += 1;
        if (data.posts[i.postIndex]!.community === data.truth.userCommunity.get(user)) community += 1;
      }
    }
    // Three favourites among 60 authors: by chance 5%; one community in eight: by chance 12.5%.
    expect(favourite / active.length).toBeGreaterThan(0.4);
    expect(community / total).toBeGreaterThan(0.35);
  });

  it('has newcomers whose short history starts in the last day or so', () => {
    const histories = byUser(data);
    const newcomers = [...data.truth.newcomers];
    expect(newcomers.length).toBeGreaterThan(20);
    for (const user of newcomers) {
      for (const i of histories.get(user) ?? []) expect(i.createdAtMs).toBeGreaterThan(ANCHOR - 2 * DAY);
    }
    const mean = (users: string[]): number => users.reduce((s, u) => s + (histories.get(u)?.length ?? 0), 0) / users.length;
    const others = data.users.filter((u) => !data.truth.newcomers.has(u));
    expect(mean(newcomers)).toBeLessThan(mean(others) / 3);
  });
});

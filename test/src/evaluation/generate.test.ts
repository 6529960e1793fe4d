import { describe, expect, it } from 'vitest';
import { baselines } from '../../../src/evaluation/baselines.js';
import { buildDataset, temporalSplit } from '../../../src/evaluation/dataset.js';
import { EvalState } from '../../../src/evaluation/eval-context.js';
import {
  generateSynthetic,
  generatorOptions,
  syntheticOptions,
  type Regime,
  type SyntheticData,
} from '../../../src/evaluation/generate.js';
import { createInteractionsParser, createPostsParser, toJsonLines } from '../../../src/evaluation/import-format.js';
import { rankingCandidate } from '../../../src/evaluation/rankers.js';
import { replayCoEngagement } from '../../../src/ranking/co-engagement.js';
import { tagTerm } from '../../../src/ranking/text.js';

const SMALL = { users: 400, authors: 80, posts: 1500 };
const feed = generateSynthetic(generatorOptions('feed', { ...SMALL, seed: 3 }));
const catalogue = generateSynthetic(generatorOptions('catalogue', { ...SMALL, posts: 800, seed: 3 }));

/** The data as an import reads it: through the files' own parsers. */
function imported(data: SyntheticData) {
  const posts = createPostsParser('posts.jsonl');
  for (const line of toJsonLines(data.statuses).split('\n')) posts.line(line);
  const interactions = createInteractionsParser('interactions.jsonl');
  for (const line of toJsonLines(data.interactions).split('\n')) interactions.line(line);
  return buildDataset(posts.finish(), interactions.finish());
}

function engagedBy(data: SyntheticData): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const i of data.interactions) {
    if (!out.has(i.user_id)) out.set(i.user_id, new Set());
    out.get(i.user_id)!.add(i.post_id);
  }
  return out;
}

describe.each<[Regime, SyntheticData]>([
  ['feed', feed],
  ['catalogue', catalogue],
])('synthetic %s data', (regime, data) => {
  it('is the same for the same seed and differs for another', () => {
    const again = generateSynthetic(generatorOptions(regime, { ...SMALL, ...(regime === 'catalogue' ? { posts: 800 } : {}), seed: 3 }));
    expect(toJsonLines(again.interactions)).toBe(toJsonLines(data.interactions));
    expect(toJsonLines(again.statuses)).toBe(toJsonLines(data.statuses));
    const other = generateSynthetic(generatorOptions(regime, { ...SMALL, ...(regime === 'catalogue' ? { posts: 800 } : {}), seed: 4 }));
    expect(toJsonLines(other.interactions)).not.toBe(toJsonLines(data.interactions));
  });

  it('round-trips through the import parsers with its tags, text and times', () => {
    const dataset = imported(data);
    expect(dataset.posts.size).toBe(data.statuses.length);
    expect(dataset.interactions.length).toBe(data.interactions.length);
    expect(dataset.dropped).toEqual({ unknownPost: 0, duplicate: 0 });
    const first = data.statuses[0]!;
    const post = dataset.posts.get(first.id)!;
    expect(post.tags).toEqual(first.tags!.map((t) => t.name));
    expect(post.text).not.toContain('<');
    expect(post.createdAtMs).toBe(Date.parse(first.created_at));
    // Ids increase with creation time, as the service's do.
    const ids = data.statuses.map((s) => Number(s.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('plants communities: users of one community engage with the same posts far more than across', () => {
    const engaged = engagedBy(data);
    const users = [...engaged.keys()].slice(0, 150);
    let same = 0;
    let sameN = 0;
    let cross = 0;
    let crossN = 0;
    for (let a = 0; a < users.length; a++) {
      for (let b = a + 1; b < users.length; b++) {
        const x = engaged.get(users[a]!)!;
        const y = engaged.get(users[b]!)!;
        let shared = 0;
        for (const p of x) if (y.has(p)) shared += 1;
        const jaccard = shared / (x.size + y.size - shared);
        if (data.truth.userCommunity.get(users[a]!) === data.truth.userCommunity.get(users[b]!))
          [same, sameN] = [same + jaccard, sameN + 1];
        else [cross, crossN] = [cross + jaccard, crossN + 1];
      }
    }
    // Popular posts draw every community (more so on a feed): the planted share shows on top of them.
    expect(same / sameN).toBeGreaterThan(1.5 * (cross / crossN));
  });

  it('plants favourite authors: the author a user engages with most is usually a favourite', () => {
    const authorOf = new Map(data.statuses.map((s) => [s.id, s.account.id]));
    const byUser = new Map<string, Map<string, number>>();
    for (const i of data.interactions) {
      const counts = byUser.get(i.user_id) ?? new Map<string, number>();
      const author = authorOf.get(i.post_id)!;
      counts.set(author, (counts.get(author) ?? 0) + 1);
      byUser.set(i.user_id, counts);
    }
    const active = [...byUser].filter(([, counts]) => [...counts.values()].reduce((a, b) => a + b, 0) >= 15);
    const hits = active.filter(([user, counts]) => {
      const top = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
      return data.truth.favouriteAuthors.get(user)!.includes(top);
    });
    // Three favourites among 80 authors: by chance about 4%.
    expect(active.length).toBeGreaterThan(20);
    expect(hits.length / active.length).toBeGreaterThan(0.25);
  });

  it('plants topics in tags and words, and a heavy popularity tail', () => {
    for (const status of data.statuses.slice(0, 50)) {
      expect(status.tags!.length).toBeGreaterThan(0);
      expect(status.content).toContain(`#<span>${status.tags![0]!.name}</span>`);
    }
    const counts = new Map<string, number>();
    for (const i of data.interactions) counts.set(i.post_id, (counts.get(i.post_id) ?? 0) + 1);
    const sorted = [...counts.values()].sort((a, b) => b - a);
    const top = sorted.slice(0, Math.ceil(data.statuses.length * 0.05)).reduce((a, b) => a + b, 0);
    // The top 5% of posts draw well over 5% of the engagement.
    expect(top / data.interactions.length).toBeGreaterThan(0.2);
  });

  it('has newcomers without history at a late cutoff', () => {
    const split = temporalSplit(imported(data));
    const cold = split.users.filter((u) => u.history.length === 0).map((u) => u.userId);
    expect(cold.length).toBeGreaterThanOrEqual(10);
    expect(cold.every((u) => data.truth.newcomers.has(u))).toBe(true);
  });
});

/** The median hours from a post to its engagement. */
function delayHours(data: SyntheticData): number {
  const created = new Map(data.statuses.map((s) => [s.id, Date.parse(s.created_at)]));
  const delays = data.interactions.map((i) => (Date.parse(i.created_at) - created.get(i.post_id)!) / 3_600_000).sort((a, b) => a - b);
  return delays[Math.floor(delays.length / 2)]!;
}

describe('the two regimes', () => {
  it('differ in time: a feed engages within hours of posting, a catalogue over months', () => {
    expect(delayHours(feed)).toBeLessThan(12);
    expect(delayHours(feed)).toBeGreaterThanOrEqual(0);
    expect(delayHours(catalogue)).toBeGreaterThan(24 * 60);
  });

  it('a feed-fast is engaged with within the hour, a feed-slow about a day after: the attention they plant', () => {
    const fast = generateSynthetic(syntheticOptions('feed-fast', { ...SMALL, seed: 3 }));
    const slow = generateSynthetic(syntheticOptions('feed-slow', { ...SMALL, seed: 3 }));
    // Attention fading e-fold in 1, 4 and 24 hours: a median delay of about 0.7 of it, the session's spread aside.
    expect(delayHours(fast)).toBeLessThan(2);
    expect(delayHours(feed)).toBeGreaterThan(2);
    expect(delayHours(feed)).toBeLessThan(6);
    expect(delayHours(slow)).toBeGreaterThan(12);
    expect(delayHours(slow)).toBeLessThan(48);
    // The slow feed spans 45 days; the fast one the feed's 14.
    const spanDays = (data: SyntheticData) =>
      (Date.parse(data.interactions.at(-1)!.created_at) - Date.parse(data.interactions[0]!.created_at)) / 86_400_000;
    expect(spanDays(slow)).toBeGreaterThan(40);
    expect(spanDays(fast)).toBeLessThan(15);
  });

  it('let the signals recover what was planted: item kNN neighbours share a community, profiles find favourite authors and topics', () => {
    const split = temporalSplit(imported(catalogue));
    const state = new EvalState(split);
    const [knn] = baselines(state, ['item_knn']);
    const returning = split.users.filter((u) => u.history.length > 0);
    let same = 0;
    let total = 0;
    for (const user of returning.slice(0, 60)) {
      const community = catalogue.truth.userCommunity.get(user.userId);
      for (const id of knn!.rank(user, 10)) {
        total += 1;
        if (catalogue.truth.postCommunity.get(id) === community) same += 1;
      }
    }
    // Eight communities: by chance one recommendation in eight.
    expect(same / total).toBeGreaterThan(0.3);

    let favourite = 0;
    let topical = 0;
    const users = returning.filter((u) => u.history.length >= 15).slice(0, 60);
    const topicOf = new Map(catalogue.statuses.map((s) => [s.id, s.tags![0]!.name]));
    for (const user of users) {
      const profile = state.profile(user);
      const [topAuthor] = profile.authorAffinity.entriesAt(split.cutoffMs).sort((a, b) => b[1] - a[1])[0]!;
      if (catalogue.truth.favouriteAuthors.get(user.userId)!.includes(topAuthor)) favourite += 1;
      const [topTag] = profile.tagAffinity.entriesAt(split.cutoffMs).sort((a, b) => b[1] - a[1])[0]!;
      const engagedTopics = user.history.map((i) => topicOf.get(i.postId));
      if (engagedTopics.includes(topTag) || profile.interest.valueAt(tagTerm(topTag), split.cutoffMs) > 0) topical += 1;
    }
    // By chance about 4%.
    expect(favourite / users.length).toBeGreaterThan(0.25);
    expect(topical / users.length).toBeGreaterThan(0.9);
  });
});

describe('the catalogue with a strong popularity head (catalogue-popular)', () => {
  it('puts more of the engagement on the most popular items, the planted structure staying what it was', () => {
    const popular = generateSynthetic(syntheticOptions('catalogue-popular', { ...SMALL, posts: 800, seed: 3 }));
    expect(popular.options).toMatchObject({ regime: 'catalogue', personalAppeal: 0.35 });
    // The same planted users, authors and posts: only what draws a user to an item changed.
    expect(popular.truth.userCommunity).toEqual(catalogue.truth.userCommunity);
    expect(popular.statuses.map((s) => s.id)).toEqual(catalogue.statuses.map((s) => s.id));
    const headShare = (data: SyntheticData): number => {
      const counts = new Map<string, number>();
      for (const i of data.interactions) counts.set(i.post_id, (counts.get(i.post_id) ?? 0) + 1);
      const sorted = [...counts.values()].sort((a, b) => b - a);
      const head = sorted.slice(0, Math.ceil(sorted.length / 20)).reduce((a, b) => a + b, 0);
      return head / data.interactions.length;
    };
    expect(headShare(popular)).toBeGreaterThan(headShare(catalogue) + 0.01);
    // And a user's engagement stays in their community less often than as planted.
    const inCommunity = (data: SyntheticData): number =>
      data.interactions.filter((i) => data.truth.postCommunity.get(i.post_id) === data.truth.userCommunity.get(i.user_id)).length /
      data.interactions.length;
    expect(inCommunity(popular)).toBeLessThan(inCommunity(catalogue) - 0.1);
    // personalAppeal 1 is the catalogue as planted, to the byte.
    expect(
      toJsonLines(generateSynthetic(generatorOptions('catalogue', { ...SMALL, posts: 800, seed: 3, personalAppeal: 1 })).interactions),
    ).toBe(toJsonLines(catalogue.interactions));
  });
});

/** Over pairs (a, b): the share for which `same(a, b)`. */
function share<T>(pairs: Iterable<[T, T]>, same: (a: T, b: T) => boolean): { share: number; n: number } {
  let hits = 0;
  let n = 0;
  for (const [a, b] of pairs) {
    n += 1;
    if (same(a, b)) hits += 1;
  }
  return { share: hits / Math.max(1, n), n };
}

describe.each<[Regime, SyntheticData]>([
  ['feed', feed],
  ['catalogue', catalogue],
])('each signal of the service recovers what was planted in synthetic %s data', (_regime, data) => {
  const split = temporalSplit(imported(data));
  const state = new EvalState(split);
  const returning = split.users.filter((u) => u.history.length >= 10).slice(0, 60);

  it("co-engagement: a post's strongest neighbours appeal to its planted community", () => {
    // The collaborative feature's own state, replayed from the interactions through the writers' rule.
    const coEngagement = replayCoEngagement(data.interactions.map((i) => ({ userId: i.user_id, postId: i.post_id })));
    const pairs: Array<[string, string]> = [];
    for (const postId of coEngagement.postIds()) {
      const neighbours = coEngagement.neighbours(postId).filter((n) => n.count >= 2);
      for (const n of neighbours.slice(0, 10)) pairs.push([postId, n.id]);
    }
    const { share: same, n } = share(pairs, (a, b) => data.truth.postCommunity.get(a) === data.truth.postCommunity.get(b));
    expect(n).toBeGreaterThan(200);
    // Eight communities: by chance about one pair in eight (seed 3: 0.33 on the feed, 0.47 on the catalogue).
    expect(same).toBeGreaterThan(0.25);
  });

  it("author affinity: a returning user's strongest author is usually a planted favourite", () => {
    const hits = share(
      returning.map((user): [string, string] => {
        const [top] = state
          .profile(user)
          .authorAffinity.entriesAt(split.cutoffMs)
          .sort((a, b) => b[1] - a[1])[0]!;
        return [user.userId, top];
      }),
      (user, author) => data.truth.favouriteAuthors.get(user)!.includes(author),
    );
    expect(hits.n).toBeGreaterThanOrEqual(30);
    // Three favourites among 80 authors: by chance about 4%.
    expect(hits.share).toBeGreaterThan(0.3);
  });

  it("the semantic feature alone ranks posts of the user's planted topics", () => {
    const semantic = rankingCandidate(
      'semantic',
      { weights: { author_preference: 0, content_engagement: 0, recency: 0, semantic_similarity: 1 }, use_semantic_scoring: true },
      state,
    );
    const pairs = returning.flatMap((user) => semantic.rank(user, 10).map((id): [string, string] => [user.userId, id]));
    const { share: onTopic } = share(pairs, (user, id) => data.truth.userTopics.get(user)!.includes(data.truth.postTopic.get(id)!));
    // Which posts are on topic by chance: the share of the catalogue's posts about a user's three topics.
    const topics = [...data.truth.postTopic.values()];
    const chance =
      returning.reduce((sum, u) => sum + topics.filter((t) => data.truth.userTopics.get(u.userId)!.includes(t)).length / topics.length, 0) /
      returning.length;
    expect(onTopic).toBeGreaterThan(Math.min(0.9, 2.5 * chance));
  });

  it('has a popularity tail: a few posts draw much of the engagement, most draw little', () => {
    const counts = new Map<string, number>(data.statuses.map((s) => [s.id, 0]));
    for (const i of data.interactions) counts.set(i.post_id, counts.get(i.post_id)! + 1);
    const sorted = [...counts.values()].sort((a, b) => b - a);
    const mean = data.interactions.length / sorted.length;
    const median = sorted[Math.floor(sorted.length / 2)]!;
    // Gini coefficient of the engagement per post: 0 if every post drew the same, near 1 if one drew all.
    const ascending = [...sorted].reverse();
    const gini =
      ascending.reduce((g, x, i) => g + (2 * (i + 1) - ascending.length - 1) * x, 0) /
      (ascending.length * ascending.reduce((a, b) => a + b, 0));
    expect(sorted[0]!).toBeGreaterThan(10 * mean);
    expect(median).toBeLessThan(mean);
    // Seed 3: about 0.43 on the catalogue, more on the feed (attention and social proof concentrate it).
    expect(gini).toBeGreaterThan(0.4);
  });
});

describe('time in the synthetic data', () => {
  const days = (data: SyntheticData, times: number[]): Set<number> => {
    const end = data.options.endMs;
    return new Set(times.map((t) => Math.floor((end - t) / 86_400_000)));
  };

  it("spreads a feed's posts and interactions over every day of its span, with a daily rhythm", () => {
    const interactions = feed.interactions.map((i) => Date.parse(i.created_at));
    const posts = feed.statuses.map((s) => Date.parse(s.created_at));
    expect(days(feed, posts).size).toBe(feed.options.days);
    // Interactions start once users do (in the first half of the span), then come every day.
    expect(days(feed, interactions).size).toBeGreaterThanOrEqual(feed.options.days - 2);
    expect(Math.max(...interactions)).toBeLessThanOrEqual(feed.options.endMs + 600_000);
    const byHour = new Array<number>(24).fill(0);
    for (const t of posts) byHour[new Date(t).getUTCHours()]! += 1;
    expect(Math.max(...byHour)).toBeGreaterThan(2 * Math.min(...byHour));
  });

  it("spreads a catalogue's ratings over months, on items mostly made before them", () => {
    const interactions = catalogue.interactions.map((i) => Date.parse(i.created_at));
    const start = catalogue.options.endMs - catalogue.options.days * 86_400_000;
    expect(Math.min(...interactions)).toBeGreaterThanOrEqual(start);
    expect(days(catalogue, interactions).size).toBeGreaterThan(catalogue.options.days / 2);
    const older = catalogue.statuses.filter((s) => Date.parse(s.created_at) < start).length;
    expect(older / catalogue.statuses.length).toBeGreaterThan(0.8);
  });
});

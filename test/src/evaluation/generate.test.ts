import { describe, expect, it } from 'vitest';
import { baselines } from '../../../src/evaluation/baselines.js';
import { buildDataset, temporalSplit } from '../../../src/evaluation/dataset.js';
import { EvalState } from '../../../src/evaluation/eval-context.js';
import { generateSynthetic, generatorOptions, type Regime, type SyntheticData } from '../../../src/evaluation/generate.js';
import { createInteractionsParser, createPostsParser, toJsonLines } from '../../../src/evaluation/import-format.js';
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

describe('the two regimes', () => {
  it('differ in time: a feed engages within hours of posting, a catalogue over months', () => {
    const delayHours = (data: SyntheticData): number => {
      const created = new Map(data.statuses.map((s) => [s.id, Date.parse(s.created_at)]));
      const delays = data.interactions.map((i) => (Date.parse(i.created_at) - created.get(i.post_id)!) / 3_600_000).sort((a, b) => a - b);
      return delays[Math.floor(delays.length / 2)]!;
    };
    expect(delayHours(feed)).toBeLessThan(12);
    expect(delayHours(feed)).toBeGreaterThanOrEqual(0);
    expect(delayHours(catalogue)).toBeGreaterThan(24 * 60);
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

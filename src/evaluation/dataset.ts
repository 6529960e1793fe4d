/**
 * An evaluation's data and its temporal holdout. Everything before the cutoff is the
 * training history; each user active after it is asked for a list once, just before their
 * first interaction after the cutoff (when they came back, or first came), and scored on
 * what they went on to engage with. A status's own counters are ignored (they are as of its
 * export, and would tell the ranking the future): the evaluation counts the interactions.
 */
import type { InteractionAction, RankablePost } from '../ranking/ranking.types.js';

/** A post as the evaluation holds it: what the ranking reads, and whether it may be recommended. */
export interface EvalPost extends RankablePost {
  readonly visibility: string;
}

/** One interaction at its real time. */
export interface EvalInteraction {
  readonly userId: string;
  readonly postId: string;
  readonly action: InteractionAction;
  readonly atMs: number;
}

/** Posts by id and interactions in time order, cleaned (see `buildDataset`). */
export interface EvalDataset {
  readonly posts: ReadonlyMap<string, EvalPost>;
  readonly interactions: readonly EvalInteraction[];
  /** Interactions left out: on a post the data does not hold, or repeating a (user, post, action). */
  readonly dropped: { readonly unknownPost: number; readonly duplicate: number };
  /**
   * Users who interacted before the data's window (a bounded read: the `ranking_fit` agent's
   * newest 100,000 interactions): returning users whose earlier history was left out, never
   * newcomers however late their first interaction in the window comes. Empty for whole data.
   */
  readonly returning: ReadonlySet<string>;
}

/**
 * Posts deduplicated by id (the last wins), interactions on known posts, the first of each
 * (user, post, action), in time order; `returning`: users known to have interacted before them.
 */
export function buildDataset(
  posts: Iterable<EvalPost>,
  interactions: Iterable<EvalInteraction>,
  returning: Iterable<string> = [],
): EvalDataset {
  const byId = new Map<string, EvalPost>();
  for (const post of posts) byId.set(post.id, post);
  const sorted = [...interactions].sort((a, b) => a.atMs - b.atMs);
  const seen = new Set<string>();
  const kept: EvalInteraction[] = [];
  let unknownPost = 0;
  let duplicate = 0;
  for (const i of sorted) {
    if (!byId.has(i.postId)) {
      unknownPost += 1;
      continue;
    }
    const key = `${i.userId}\u0000${i.postId}\u0000${i.action}`;
    if (seen.has(key)) {
      duplicate += 1;
      continue;
    }
    seen.add(key);
    kept.push(i);
  }
  return { posts: byId, interactions: kept, dropped: { unknownPost, duplicate }, returning: new Set(returning) };
}

/** Public and unlisted posts may be recommended (as the server's pool). */
export function isRecommendable(post: EvalPost): boolean {
  return post.visibility === 'public' || post.visibility === 'unlisted';
}

/** The post a recommendation or an engagement counts for: a reblog counts as its original. */
export function canonicalId(dataset: EvalDataset, postId: string): string {
  return dataset.posts.get(postId)?.reblogOfId ?? postId;
}

export interface SplitOptions {
  /** Start of the test period; default: the instant before which `1 − testFraction` of the interactions happened. */
  readonly cutoffMs?: number;
  /** Share of the interactions in the test period (default 0.1). */
  readonly testFraction?: number;
  /** Only engagements within this long after a user's evaluation instant are targets (default: all after it). */
  readonly horizonMs?: number;
  /** The test period ends here (exclusive; default: after the last interaction). */
  readonly endMs?: number;
  /**
   * When each test user is asked (default `first-interaction`): at their own first interaction
   * after the cutoff, the service as it stood then (a live service's users come back at their
   * own times); or all at the `cutoff`, once, as an evaluator who replays a history into a
   * service and then asks for every user's list does — the targets are then what existed at the
   * cutoff (bench/README.md, "Served against predicted").
   */
  readonly askAt?: AskAt;
}

/** When test users are asked for their lists (SplitOptions.askAt). */
export type AskAt = 'first-interaction' | 'cutoff';

/** A user evaluated once, at the instant they came back (or first came) during the test period. */
export interface TestUser {
  readonly userId: string;
  /** Their first interaction in the test period (or the cutoff: SplitOptions.askAt): the ranking is asked for just before it. */
  readonly atMs: number;
  /** Their interactions before the cutoff (none: a user without history), in time order. */
  readonly history: readonly EvalInteraction[];
  /**
   * The (canonical) posts they engaged with from `atMs` on (within the horizon) that existed
   * at `atMs`, may be recommended, and were not engaged with before.
   */
  readonly targets: ReadonlySet<string>;
}

/** A temporal holdout: everything before the cutoff trains, each test user is asked for a list at their own instant after it. */
export interface Split {
  readonly dataset: EvalDataset;
  readonly cutoffMs: number;
  readonly endMs: number;
  /** Interactions before the cutoff, in time order. */
  readonly train: readonly EvalInteraction[];
  /** Users with at least one target, by evaluation instant (then id). */
  readonly users: readonly TestUser[];
}

/** The default share of interactions in the test period. */
export const DEFAULT_TEST_FRACTION = 0.1;

/** Splits the data at the cutoff (see `Split`). */
export function temporalSplit(dataset: EvalDataset, options: SplitOptions = {}): Split {
  const all = dataset.interactions;
  const cutoffMs = options.cutoffMs ?? cutoffFor(all, options.testFraction ?? DEFAULT_TEST_FRACTION);
  const endMs = options.endMs ?? Infinity;
  const horizonMs = options.horizonMs ?? Infinity;
  const train = all.filter((i) => i.atMs < cutoffMs);
  const histories = new Map<string, EvalInteraction[]>();
  for (const i of train) push(histories, i.userId, i);
  const later = new Map<string, EvalInteraction[]>();
  for (const i of all) if (i.atMs >= cutoffMs && i.atMs < endMs) push(later, i.userId, i);
  const users: TestUser[] = [];
  for (const [userId, events] of later) {
    const atMs = options.askAt === 'cutoff' ? cutoffMs : (events[0] as EvalInteraction).atMs;
    const history = histories.get(userId) ?? [];
    const before = new Set(history.map((i) => canonicalId(dataset, i.postId)));
    const targets = new Set<string>();
    for (const i of events) {
      if (i.atMs >= atMs + horizonMs) break;
      const post = dataset.posts.get(canonicalId(dataset, i.postId));
      if (post === undefined || post.createdAtMs > atMs || !isRecommendable(post) || before.has(post.id)) continue;
      targets.add(post.id);
    }
    if (targets.size > 0) users.push({ userId, atMs, history, targets });
  }
  users.sort((a, b) => a.atMs - b.atMs || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
  return { dataset, cutoffMs, endMs, train, users };
}

/**
 * A validation split for tuning: the training part of `split` split again the same way
 * (the same share in its test period, which ends at the test cutoff), so that tuning never
 * sees the test period.
 */
export function validationSplit(split: Split, testFraction = DEFAULT_TEST_FRACTION): Split {
  const inner: EvalDataset = { ...split.dataset, interactions: split.train };
  return temporalSplit(inner, { cutoffMs: cutoffFor(split.train, testFraction), endMs: split.cutoffMs });
}

/** The instant before which `1 − fraction` of the (time-ordered) interactions happened. */
export function cutoffFor(interactions: readonly EvalInteraction[], fraction: number): number {
  if (interactions.length === 0) return 0;
  const share = Math.min(1, Math.max(0, fraction));
  const at = Math.min(interactions.length - 1, Math.max(0, Math.floor(interactions.length * (1 - share))));
  return (interactions[at] as EvalInteraction).atMs;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** A seeded sample of at most `max` users, in time order. */
export function sampleUsers(users: readonly TestUser[], max: number, seed: number): TestUser[] {
  if (users.length <= max) return [...users];
  let state = seed >>> 0;
  const keyed = users.map((_, i) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return [state, i] as const;
  });
  return keyed
    .sort((a, b) => a[0] - b[0])
    .slice(0, max)
    .map(([, i]) => i)
    .sort((a, b) => a - b)
    .map((i) => users[i] as TestUser);
}

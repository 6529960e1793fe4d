/**
 * What "trending" means, once: trending tags (the tags carried by the most pooled posts in
 * a recent window; they drive the `TRENDING_TAG` reason and the cold-start ranking) and
 * trending posts (distinct engagers, new accounts discounted, grouped by instance, decayed
 * with age, under the source shares; the trending endpoint).
 */
import { ENGAGEMENT_WEIGHTS } from './features.js';
import { DEFAULT_SOURCE_SHARES, takeWithinShares, type SourcedItem, type SourceShares } from './source-shares.js';
import type { Vocabulary } from './vocabulary.js';

/** A trending tag, with the number of window posts carrying it. */
export interface TrendingTag {
  /** Lowercase, without `#`. */
  readonly tag: string;
  readonly termId: number;
  readonly count: number;
}

interface TaggedSlot {
  readonly tagIds: Int32Array;
  readonly post: { readonly createdAtMs: number };
}

/**
 * The `topK` tags with at least `minCount` posts created in the `windowHours` before
 * `nowMs`, most posts first (ties by tag name so the list is deterministic).
 */
export function computeTrending(
  slots: readonly (TaggedSlot | undefined)[],
  vocabulary: Vocabulary,
  nowMs: number,
  windowHours: number,
  topK: number,
  minCount: number,
): TrendingTag[] {
  const since = nowMs - windowHours * 3_600_000;
  const counts = new Map<number, number>();
  for (const slot of slots) {
    if (slot === undefined || slot.post.createdAtMs < since || slot.post.createdAtMs > nowMs) continue;
    for (const id of slot.tagIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const tags: TrendingTag[] = [];
  for (const [termId, count] of counts) {
    if (count >= minCount) tags.push({ tag: vocabulary.term(termId).slice(1), termId, count });
  }
  tags.sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  return tags.slice(0, topK);
}

/** A post's trend halves every 12 hours. */
export const TRENDING_HALF_LIFE_HOURS = 12;
/** Only posts of the last three days can trend. */
export const TRENDING_WINDOW_HOURS = 72;

/**
 * Trending is listed under the source shares one page at a time: within each run of this many
 * posts (Mastodon's default trends page), no instance or author takes more than its share
 * while other trending posts are left.
 */
export const TRENDING_PAGE_SIZE = 20;

/** The distinct users of one group who favourited, and who reblogged, one post. */
export interface EngagerGroup {
  /** The users' instance (`host[:port]`), or '' for the service's own API users (ids without '@'), each counted plainly. */
  readonly instance: string;
  /** The favouriting users, each counted by its `accountAgeWeight` (1 each for established accounts). */
  readonly favourites: number;
  /** The reblogging users, counted the same way. */
  readonly reblogs: number;
}

/** An account this many days old (or older) when it engages counts fully. */
export const NEW_ACCOUNT_FULL_AGE_DAYS = 30;
/** What an account counts on its first day: a burst of fresh accounts weighs a tenth of as many established ones. */
export const NEW_ACCOUNT_MIN_WEIGHT = 0.1;

/**
 * The new-account discount: an engagement counts
 * w(age) = NEW_ACCOUNT_MIN_WEIGHT + (1 − NEW_ACCOUNT_MIN_WEIGHT) · min(1, age / NEW_ACCOUNT_FULL_AGE_DAYS),
 * `age` the account's age when it engaged (its `created_at` where the service stored the
 * account, else the time the service first saw it act); 0.1 on the first day, 0.55 at 15 days,
 * 1 from 30 days on. A negative or unknown age counts as new. Non-decreasing in the age, never 0,
 * so a new account's engagement still counts, only less.
 */
export function accountAgeWeight(ageMs: number): number {
  const age = Number.isFinite(ageMs) && ageMs > 0 ? ageMs : 0;
  return NEW_ACCOUNT_MIN_WEIGHT + (1 - NEW_ACCOUNT_MIN_WEIGHT) * Math.min(1, age / (NEW_ACCOUNT_FULL_AGE_DAYS * 86_400_000));
}

/** One user's engagement with one post, for `engagerGroups`. */
export interface PostEngagement {
  readonly postId: string;
  /** `<account id>@<instance>` for a user of an instance, an id without '@' for an API user. */
  readonly userId: string;
  /** When the user favourited / reblogged the post (null: did not). */
  readonly favouritedAtMs: number | null;
  readonly rebloggedAtMs: number | null;
}

/** The instance a user id counts under: the host after the last '@', or '' for an API user. */
export function engagerInstance(userId: string): string {
  const at = userId.indexOf('@');
  return at > 0 ? userId.slice(at + 1) : '';
}

/**
 * Per post and instance, the age-weighted counts of its favouriting and reblogging users
 * (`accountAgeWeight` of each user's age at the time of its action); `accountSinceMs` gives a
 * user's account creation (or first-seen) time.
 */
export function engagerGroups(
  engagements: Iterable<PostEngagement>,
  accountSinceMs: (userId: string) => number | undefined,
): (EngagerGroup & { readonly postId: string })[] {
  const groups = new Map<string, { postId: string; instance: string; favourites: number; reblogs: number }>();
  for (const e of engagements) {
    const instance = engagerInstance(e.userId);
    const key = `${e.postId}\u0000${instance}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { postId: e.postId, instance, favourites: 0, reblogs: 0 }));
    const since = accountSinceMs(e.userId);
    const weight = (atMs: number): number => accountAgeWeight(since === undefined ? 0 : atMs - since);
    if (e.favouritedAtMs !== null) group.favourites += weight(e.favouritedAtMs);
    if (e.rebloggedAtMs !== null) group.reblogs += weight(e.rebloggedAtMs);
  }
  return [...groups.values()];
}

/**
 * A post's engagement from its distinct engagers: each API user counts plainly, and the n
 * distinct users of one instance who took an action count log2(1 + n) (1 → 1, 3 → 2, 7 → 3,
 * 1,000 → ≈ 10), so that one instance's mass-created accounts add little. Each user counts
 * `accountAgeWeight` of its account's age rather than 1 (n is then the sum of the weights), so
 * that a burst of new accounts adds little wherever they live:
 * engagement = Σ_actions w_a · (n_{'',a} + Σ_{instances i} log2(1 + n_{i,a})), w = ENGAGEMENT_WEIGHTS
 * (favourite 1, reblog 2). Increasing in every count, so within one instance more engagers
 * always mean more engagement.
 */
export function distinctEngagement(groups: Iterable<EngagerGroup>): number {
  const counted = (n: number, plain: boolean): number => {
    const count = Number.isFinite(n) && n > 0 ? n : 0;
    return plain ? count : Math.log2(1 + count);
  };
  let total = 0;
  for (const group of groups) {
    const plain = group.instance === '';
    total += ENGAGEMENT_WEIGHTS.favourites * counted(group.favourites, plain) + ENGAGEMENT_WEIGHTS.reblogs * counted(group.reblogs, plain);
  }
  return total;
}

/** A post as trending posts read it. */
export interface TrendCandidate extends SourcedItem {
  readonly id: string;
  readonly createdAtMs: number;
  /** `distinctEngagement` of its engagers. */
  readonly engagement: number;
}

/**
 * Trending posts: trend_score = engagement · 2^(−age_hours / TRENDING_HALF_LIFE_HOURS), posts
 * scoring 0 left out, highest first (ties: newer id first); then, page by page of
 * TRENDING_PAGE_SIZE, `takeWithinShares` (no instance or author beyond its share of a page
 * while other posts are left); the first `size`. The caller passes the original public posts
 * of the last TRENDING_WINDOW_HOURS.
 */
export function computeTrendingPosts(
  posts: Iterable<TrendCandidate>,
  nowMs: number,
  size: number,
  shares: SourceShares = DEFAULT_SOURCE_SHARES,
): { id: string; score: number }[] {
  const scored: (SourcedItem & { id: string; score: number })[] = [];
  for (const post of posts) {
    const ageHours = Math.max(0, nowMs - post.createdAtMs) / 3_600_000;
    const engagement = Number.isFinite(post.engagement) && post.engagement > 0 ? post.engagement : 0;
    const score = engagement * Math.pow(2, -ageHours / TRENDING_HALF_LIFE_HOURS);
    if (score > 0) scored.push({ id: post.id, score, sourceInstance: post.sourceInstance, accountId: post.accountId });
  }
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const listed: { id: string; score: number }[] = [];
  let rest = scored;
  while (listed.length < size && rest.length > 0) {
    const page = takeWithinShares(rest, Math.min(TRENDING_PAGE_SIZE, size - listed.length), shares);
    const onPage = new Set(page);
    for (const item of page) listed.push({ id: item.id, score: item.score });
    rest = rest.filter((item) => !onPage.has(item));
  }
  return listed;
}

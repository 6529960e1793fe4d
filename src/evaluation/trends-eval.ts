/**
 * FASP trends against fediscoverer's score (issue 29, item 3): does the rank this service's
 * trends give at an instant T predict the engagement of the following window better than the
 * capped-count score of mastodon/fediscoverer, Mastodon's reference provider, on the same data?
 *
 * Protocol, at each instant T (from the first instant on, every `stepHours`, while T + the
 * horizon is within the data):
 * - candidates: the posts a `withinLastHours` query asks about: original (not a reblog), public,
 *   not sensitive, created in (T − withinLastHours, T];
 * - both rankers read only the interactions before T (favourites and reblogs; bookmarks are
 *   private, neither provider sees them):
 *   - **recsvc**: the trends formula (src/ranking/trending.ts): distinct engagers grouped by
 *     instance, new accounts discounted (age from the user's first interaction in the data,
 *     which is never after its engagement before T), decayed with age, listed under the source
 *     shares (posts of the data have no source instance: the author share applies);
 *   - **fediscoverer**: its content score (mastodon/fediscoverer, app/models/content_activity.rb
 *     `calculate_score` with app/models/concerns/scorable_concern.rb's caps, ranked by
 *     app/queries/content_object/trends_query.rb): trend_signals + min(likes, 100)/10 +
 *     min(shares, 100)/10 + 0.3 · replies. Fediscoverer files a post's likes and shares in its
 *     publishing hour, so for a post created within the window the query's score is that sum
 *     divided by the window's hours minus nothing from the previous window: the order is the
 *     sum's. Here likes = favourites and shares = reblogs before T; the data hold neither
 *     replies nor Mastodon's trend signals, so both are 0 (the same for both rankers: recsvc does
 *     not count replies either). Posts with a score of 0 are left out, as its `> 0` condition
 *     does; ties newest first (as recsvc's). Written for this service from that description,
 *     not ported;
 * - the target: each candidate's engagement in [T, T + horizon): the distinct users who
 *   favourited or reblogged it then;
 * - metrics per instant: nDCG@K of each list against the targets as graded gains (DCG =
 *   Σ_{r ≤ K} gain_r / log2(r + 1), IDCG the same for the candidates by gain), and Spearman's
 *   rank correlation over all candidates between the list's order (candidates left off the
 *   list tied after it, average ranks) and the target (average ranks for ties); 0 when either
 *   side does not vary. Instants where no candidate was engaged with afterwards are skipped.
 *
 * Intervals: the instants are resampled (the per-instant bootstrap, one seeded set of
 * resamples for both rankers, so the difference recsvc − fediscoverer is paired). Consecutive
 * instants closer than the horizon share part of their target windows, so the intervals are
 * somewhat narrower than fully independent instants would give.
 */
import { computeTrendingPosts, distinctEngagement, engagerGroups, type PostEngagement } from '../ranking/trending.js';
import { bootstrapMean, bootstrapPairedDifference, drawResamples, type Estimate } from './bootstrap.js';
import type { EvalDataset, EvalPost } from './dataset.js';

export interface TrendsEvalOptions {
  /** The first instant (ms). */
  readonly fromMs: number;
  /** The `withinLastHours` of the query (Mastodon asks 4). */
  readonly withinLastHours: number;
  /** The target window after each instant. */
  readonly horizonHours: number;
  /** Hours between instants. */
  readonly stepHours: number;
  /** The list length (Mastodon asks maxCount=20). */
  readonly k: number;
  readonly samples: number;
  readonly seed: number;
}

export const DEFAULT_TRENDS_EVAL = { withinLastHours: 4, horizonHours: 24, k: 20 } as const;

export const TREND_RANKERS = ['recsvc', 'fediscoverer'] as const;
export type TrendRankerName = (typeof TREND_RANKERS)[number];
export const TREND_METRICS = ['ndcg', 'spearman'] as const;
export type TrendMetricName = (typeof TREND_METRICS)[number];

/** One instant's lists and metrics. */
export interface TrendInstant {
  readonly atMs: number;
  readonly candidates: number;
  /** Each ranker's list (post ids, best first, at most K) and metrics. */
  readonly rankers: Record<TrendRankerName, { readonly list: readonly string[]; readonly ndcg: number; readonly spearman: number }>;
}

export interface TrendsEvaluation {
  readonly from: string;
  readonly within_last_hours: number;
  readonly horizon_hours: number;
  readonly step_hours: number;
  readonly k: number;
  /** Instants evaluated (with at least one candidate engaged with afterwards). */
  readonly instants: number;
  /** Instants skipped: no candidate, or none engaged with afterwards. */
  readonly skipped_instants: number;
  readonly mean_candidates: number;
  readonly samples: number;
  readonly seed: number;
  readonly confidence: number;
  readonly rankers: { readonly name: TrendRankerName; readonly metrics: Record<TrendMetricName, Estimate> }[];
  /** recsvc − fediscoverer, per metric, paired over instants. */
  readonly difference: Record<TrendMetricName, Estimate>;
}

const HOUR_MS = 3_600_000;
/** fediscoverer's cap on likes and on shares (ScorableConcern: `[likes, 100].min / 10.0`). */
const FEDISCOVERER_CAP = 100;

/** fediscoverer's content score of counts (trend signals and replies as given; 0 on data without them). */
export function fediscovererScore(likes: number, shares: number, replies = 0, trendSignals = 0): number {
  return trendSignals + Math.min(likes, FEDISCOVERER_CAP) / 10 + Math.min(shares, FEDISCOVERER_CAP) / 10 + 0.3 * replies;
}

/** Posts a FASP trends query may list: original, public, not sensitive. */
function trendable(post: EvalPost): boolean {
  return post.reblogOfId === null && post.visibility === 'public' && !post.sensitive;
}

/** Every instant's lists and metrics (see the protocol above). */
export function trendInstants(
  dataset: EvalDataset,
  options: Omit<TrendsEvalOptions, 'samples' | 'seed'>,
): { instants: TrendInstant[]; skipped: number } {
  const interactions = dataset.interactions.filter((i) => i.action === 'favorite' || i.action === 'reblog');
  const byPost = new Map<string, typeof interactions>();
  for (const i of interactions) {
    const list = byPost.get(i.postId);
    if (list === undefined) byPost.set(i.postId, [i]);
    else list.push(i);
  }
  const firstSeen = new Map<string, number>();
  for (const i of dataset.interactions) if (!firstSeen.has(i.userId)) firstSeen.set(i.userId, i.atMs);
  const endMs = dataset.interactions.length === 0 ? 0 : (dataset.interactions[dataset.interactions.length - 1]?.atMs ?? 0);
  const posts = [...dataset.posts.values()].filter(trendable).sort((a, b) => a.createdAtMs - b.createdAtMs);
  const stepMs = options.stepHours * HOUR_MS;
  const windowMs = options.withinLastHours * HOUR_MS;
  const horizonMs = options.horizonHours * HOUR_MS;
  const instants: TrendInstant[] = [];
  let skipped = 0;
  for (let t = options.fromMs; t + horizonMs <= endMs; t += stepMs) {
    const candidates = posts.filter((p) => p.createdAtMs > t - windowMs && p.createdAtMs <= t);
    const gain = new Map<string, number>();
    const engagements: PostEngagement[] = [];
    const counts = new Map<string, { likes: number; shares: number }>();
    for (const post of candidates) {
      const users = new Set<string>();
      const before = new Map<string, { fav: number | null; reblog: number | null }>();
      let likes = 0;
      let shares = 0;
      for (const i of byPost.get(post.id) ?? []) {
        if (i.atMs < t) {
          const e = before.get(i.userId) ?? { fav: null, reblog: null };
          if (i.action === 'favorite') {
            e.fav = i.atMs;
            likes += 1;
          } else {
            e.reblog = i.atMs;
            shares += 1;
          }
          before.set(i.userId, e);
        } else if (i.atMs < t + horizonMs) users.add(i.userId);
      }
      gain.set(post.id, users.size);
      counts.set(post.id, { likes, shares });
      for (const [userId, e] of before) engagements.push({ postId: post.id, userId, favouritedAtMs: e.fav, rebloggedAtMs: e.reblog });
    }
    if (candidates.length === 0 || [...gain.values()].every((g) => g === 0)) {
      skipped += 1;
      continue;
    }
    const groups = new Map<string, ReturnType<typeof engagerGroups>>();
    for (const g of engagerGroups(engagements, (userId) => firstSeen.get(userId))) {
      const list = groups.get(g.postId);
      if (list === undefined) groups.set(g.postId, [g]);
      else list.push(g);
    }
    const recsvc = computeTrendingPosts(
      candidates.map((p) => ({
        id: p.id,
        createdAtMs: p.createdAtMs,
        engagement: distinctEngagement(groups.get(p.id) ?? []),
        sourceInstance: '',
        accountId: p.accountId,
      })),
      t,
      candidates.length,
    ).map((p) => p.id);
    const fediscoverer = candidates
      .map((p) => {
        const c = counts.get(p.id) ?? { likes: 0, shares: 0 };
        return { id: p.id, score: fediscovererScore(c.likes, c.shares) };
      })
      .filter((p) => p.score > 0)
      .sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((p) => p.id);
    const ids = candidates.map((p) => p.id);
    const metrics = (list: string[]) => ({
      list: list.slice(0, options.k),
      ndcg: gradedNdcg(list, gain, options.k),
      spearman: listSpearman(list, ids, gain),
    });
    instants.push({ atMs: t, candidates: candidates.length, rankers: { recsvc: metrics(recsvc), fediscoverer: metrics(fediscoverer) } });
  }
  return { instants, skipped };
}

/** nDCG@k with graded gains: Σ_{r ≤ k} gain_r / log2(r + 1) over the ideal ordering's; 0 when no gain. */
export function gradedNdcg(list: readonly string[], gain: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  list.slice(0, k).forEach((id, i) => {
    dcg += (gain.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...gain.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Average ranks (1-based) of values, ties sharing the mean of their positions; ascending = rank 1 for the largest when `descending`. */
function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]);
  const ranks = new Array<number>(values.length).fill(0);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]![0] === order[start]![0]) end += 1;
    const rank = (start + end) / 2 + 1;
    for (let j = start; j <= end; j++) ranks[order[j]![1]] = rank;
    start = end + 1;
  }
  return ranks;
}

/** Pearson's correlation; 0 when either side does not vary. */
function pearson(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  if (n < 2) return 0;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? 0 : sxy / Math.sqrt(sxx * syy);
}

/**
 * Spearman's rho over `ids` between a list's order (position 1 best; ids off the list tied
 * after it) and the gains: Pearson's correlation of the average ranks.
 */
export function listSpearman(list: readonly string[], ids: readonly string[], gain: ReadonlyMap<string, number>): number {
  const position = new Map(list.map((id, i) => [id, i]));
  // A higher "listing score" is a better place: the list's first gets ids.length, the unlisted 0.
  const listed = ids.map((id) => {
    const p = position.get(id);
    return p === undefined ? 0 : ids.length - p;
  });
  return pearson(averageRanks(listed), averageRanks(ids.map((id) => gain.get(id) ?? 0)));
}

/** The evaluation: every instant, then bootstrap intervals over the instants and the paired difference. */
export function evaluateTrends(dataset: EvalDataset, options: TrendsEvalOptions): TrendsEvaluation {
  const { instants, skipped } = trendInstants(dataset, options);
  const resamples = drawResamples(instants.length, options.samples, options.seed);
  const values = (ranker: TrendRankerName, metric: TrendMetricName): Float64Array =>
    Float64Array.from(instants, (instant) => instant.rankers[ranker][metric]);
  const estimate = (f: () => Estimate): Estimate =>
    instants.length === 0 ? { value: Number.NaN, ci_low: Number.NaN, ci_high: Number.NaN } : f();
  const metricsOf = (ranker: TrendRankerName) =>
    Object.fromEntries(TREND_METRICS.map((m) => [m, estimate(() => bootstrapMean(resamples, values(ranker, m)))])) as Record<
      TrendMetricName,
      Estimate
    >;
  return {
    from: new Date(options.fromMs).toISOString(),
    within_last_hours: options.withinLastHours,
    horizon_hours: options.horizonHours,
    step_hours: options.stepHours,
    k: options.k,
    instants: instants.length,
    skipped_instants: skipped,
    mean_candidates: instants.length === 0 ? 0 : instants.reduce((s, i) => s + i.candidates, 0) / instants.length,
    samples: options.samples,
    seed: options.seed,
    confidence: 0.95,
    rankers: TREND_RANKERS.map((name) => ({ name, metrics: metricsOf(name) })),
    difference: Object.fromEntries(
      TREND_METRICS.map((m) => [m, estimate(() => bootstrapPairedDifference(resamples, values('recsvc', m), values('fediscoverer', m)))]),
    ) as Record<TrendMetricName, Estimate>,
  };
}

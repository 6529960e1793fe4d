/**
 * Ranks the candidate pool for one user: one pass scoring every eligible slot over the
 * pool's per-slot columns (the cosine only where it can change the outcome), top-k
 * selection, then the diversity rules (one post per reblog group, a cap per author).
 */
import { SLOT_EXTRA, SLOT_TAGGED, type CandidateIndex, type Slot } from './candidate-index.js';
import { collaborativeMatches, type CollaborativeMatch } from './collaborative.js';
import { ALL_TIME } from './engagement-pace.js';
import { hotScore, recencyFeature } from './features.js';
import { isColdStart, type UserProfile } from './profile.js';
import type { AlgorithmConfig, ColdStartWeights, FeatureVector, RankedItem, RankingOptions, Weights } from './ranking.types.js';
import { DEFAULT_PER_AUTHOR_CAP, DEFAULT_RECENCY_HALF_LIFE_HOURS } from './ranking.types.js';
import { explainRanking } from './reasons.js';
import { scoreAtLeast, scoreBucket, selectTopK } from './top-k.js';
import { MAX_VECTOR_TERMS } from './vocabulary.js';
import { prepareUserContext, type UserContext } from './user-context.js';
import { effectiveWeights } from './weights.js';

/**
 * Without history the author and semantic features say nothing, so cold start ignores the
 * variant's weights and ranks by what the community engages with now: engagement, then
 * recency, then how strongly the post's tags trend.
 */
export const COLD_START_WEIGHTS: ColdStartWeights = { content_engagement: 0.5, recency: 0.3, trending: 0.2 };

/** The `hot` cold start: its engagement measure is the whole score (recency is in it already). */
const HOT_WEIGHTS: ColdStartWeights = { content_engagement: 1, recency: 0, trending: 0 };

/**
 * The pool's "hot" scores (`hotScore` of each post's all-time positives at its age) and their
 * maximum over the pool's own posts (not the collaborative extras, as for every engagement
 * measure): the cold start's measure under `coldStartEngagement: 'hot'`.
 */
function hotColumn(index: CandidateIndex, nowMs: number): { values: Float64Array; max: number } {
  const { flags, positives, createdAt } = index.columns;
  const values = new Float64Array(index.columns.capacity);
  let max = 0;
  for (let i = 0; i < index.slots.length; i++) {
    const f = flags[i]!;
    if (f === 0) continue;
    const v = hotScore(Math.expm1(positives[i]!), nowMs - createdAt[i]!);
    values[i] = v;
    if (v > max && (f & SLOT_EXTRA) === 0) max = v;
  }
  return { values, max };
}

interface Pass {
  readonly index: CandidateIndex;
  readonly ctx: UserContext;
  readonly weights: Required<Weights>;
  readonly cold: boolean;
  readonly nowMs: number;
  /** RankingOptions.createdNotAfterMs (Infinity: none left out). */
  readonly createdNotAfterMs: number;
  readonly recency: RecencyPass;
  /**
   * The cold start reads the positives count instead of the weighted engagement, and gives no
   * recency to a post without any positive (RankingOptions.coldStartEngagement `positives`).
   */
  readonly positives: boolean;
  /**
   * The engagement measure by slot (log1p): the all-time columns, or the decayed ones at the
   * pace's half-life (RankingOptions.engagementHalfLife); the positives count's for `positives`.
   */
  readonly engagement: Float64Array;
  /** 1 / the pool's maximum of the engagement measure read, 0 when none. */
  readonly invMaxEngagement: number;
  /** Weight of the cosine when the pass uses it, else 0 (cold start, no interests, weight 0). */
  readonly semanticWeight: number;
  /** The collaborative feature by slot, when weighed and the user has co-engaged posts (else collaborative candidates stay out). */
  readonly collab: CollaborativeColumn | undefined;
  /** The cold-start mix (RankingOptions.coldStartWeights). */
  readonly coldStart: ColdStartWeights;
  /** RankingOptions.personalReasonShare. */
  readonly personalReasonShare: number;
}

/** The collaborative feature of one user laid over the pool: the value by slot and the seed post of each slot above 0. */
interface CollaborativeColumn {
  readonly values: Float64Array;
  readonly seeds: Map<number, string>;
}

/**
 * Where the scoring pass left things. The first `exact` entries of the scratch's `eligible`
 * have their final score in `scores`, counted in `histogram`; the first `deferred` of the
 * scratch's `deferred` are eligible but still hold their score without the cosine, because
 * even a cosine of 1 could not lift them into the best `k` asked so far (see `scoreAll`).
 * `lower` counts every eligible post's lower bound.
 */
interface Scored {
  readonly eligible: number;
  exact: number;
  deferred: number;
  readonly histogram: Int32Array;
  readonly lower: Int32Array;
}

/**
 * The user's top `limit` posts from the pool, scores (Σ weight·feature, in [0, 1])
 * descending; ties go to the newer post, then to the smaller id.
 */
export function rankCandidates(
  index: CandidateIndex,
  profile: UserProfile,
  config: AlgorithmConfig,
  options: RankingOptions,
): RankedItem[] {
  const limit = Math.max(0, Math.floor(options.limit));
  if (limit === 0 || index.size === 0) return [];
  index.refreshVectors();
  const ctx = prepareUserContext(index, profile, options.nowMs, options.excludeIds ?? []);
  try {
    const weights = effectiveWeights(config);
    const cold = isColdStart(profile);
    const hot = cold && options.coldStartEngagement === 'hot';
    const positives = cold && (options.coldStartEngagement === 'positives' || hot);
    const rung = index.engagementRung(options.engagementHalfLife);
    const decayed = hot || rung === ALL_TIME ? undefined : index.decayedEngagement(rung, options.nowMs, positives);
    const hotRead = hot ? hotColumn(index, options.nowMs) : undefined;
    const engagement = hotRead?.values ?? decayed?.values ?? (positives ? index.columns.positives : index.columns.engagement);
    const maxEngagement = hotRead?.max ?? decayed?.max ?? (positives ? index.positivesMax() : index.engagementMax());
    const recent = profile.recentPosts ?? [];
    const matches =
      cold || weights.collaborative <= 0 || recent.length === 0
        ? undefined
        : (options.collaborative ?? (options.coEngagement === undefined ? undefined : collaborativeMatches(options.coEngagement, recent)));
    const collab = matches === undefined ? undefined : collaborativeColumn(index, matches);
    const pass: Pass = {
      index,
      ctx,
      weights,
      cold,
      nowMs: options.nowMs,
      createdNotAfterMs: options.createdNotAfterMs ?? Infinity,
      recency: recencyPass(index, options.recencyHalfLifeHours ?? DEFAULT_RECENCY_HALF_LIFE_HOURS, options.nowMs),
      positives,
      engagement,
      invMaxEngagement: maxEngagement > 0 ? 1 / maxEngagement : 0,
      semanticWeight: !cold && weights.semantic_similarity > 0 && ctx.interestNorm > 0 ? weights.semantic_similarity : 0,
      collab,
      coldStart: hot ? HOT_WEIGHTS : (options.coldStartWeights ?? COLD_START_WEIGHTS),
      personalReasonShare: options.personalReasonShare ?? 1,
    };
    const scored = scoreAll(pass, limit);
    const chosen = pickDiverse(pass, scored, limit, options.perAuthorCap ?? DEFAULT_PER_AUTHOR_CAP);
    return chosen.map((slot) => toItem(pass, slot));
  } finally {
    ctx.release();
  }
}

/** The user's collaborative feature by slot (see ./collaborative.ts); undefined when no pooled post has one. */
function collaborativeColumn(index: CandidateIndex, matches: ReadonlyMap<string, CollaborativeMatch>): CollaborativeColumn | undefined {
  let values: Float64Array | undefined;
  const seeds = new Map<number, string>();
  for (const [postId, match] of matches) {
    const slot = index.slotOf(postId);
    if (slot === undefined) continue;
    values ??= new Float64Array(index.slots.length);
    values[slot.index] = match.value;
    seeds.set(slot.index, match.seedId);
  }
  return values === undefined ? undefined : { values, seeds };
}

/** How many of the best the diversity walk looks at first (it widens when its rules skipped too many). */
function firstK(eligible: number, limit: number): number {
  return Math.min(eligible, limit * 4 + 16);
}

/**
 * Scores every slot (−1 when not eligible) reading the pool's per-slot columns (typed
 * arrays) only: the slots and their posts are left for the rare paths (muted tags) and
 * the chosen few (`toItem`).
 *
 * The cosine is most of the cost (a dot product per post), so it is computed only where
 * it can matter: the score without it is a lower bound of the final score, and that plus
 * the semantic weight an upper bound (the cosine is clamped to [0, 1]; both bounds hold in
 * floating point, rounding being monotone). A post whose upper bound is below the k-th
 * best lower bound cannot be among the best k, so its cosine waits (`Scored.deferred`)
 * until the walk asks for more than k (`scoreDeferred`).
 */
function scoreAll(p: Pass, limit: number): Scored {
  const { scores, excluded, authorBlocked, tagMuted, authorFeature, languageAllowed, eligible: positions } = p.ctx.scratch;
  const { filterLanguages, anyTagMuted } = p.ctx;
  const collab = p.collab?.values;
  const wCollab = p.weights.collaborative;
  // Collaborative candidates are ranked only for a user with a collaborative feature for them.
  const skippedFlags = collab === undefined ? p.ctx.skippedFlags | SLOT_EXTRA : p.ctx.skippedFlags;
  const { flags, createdAt, author, language } = p.index.columns;
  const engagement = p.engagement;
  const { cold, nowMs, invMaxEngagement, semanticWeight, positives, createdNotAfterMs } = p;
  const w = cold ? coldAsWeights(p.coldStart) : p.weights;
  const wEngagement = w.content_engagement;
  const wRecency = w.recency;
  const wAuthor = w.author_preference;
  const wTrending = p.coldStart.trending;
  // Without a trending weight its scores are not even computed.
  const trend = cold && wTrending > 0 ? p.index.slotTrendScores(nowMs) : undefined;
  const { values: recencyValues, factor: recencyFactor, halfLifeHours } = p.recency;
  const slots = p.index.slots;
  const n = slots.length;
  // Without the cosine, these scores are final: one histogram serves as both.
  const lower = p.ctx.scratch.lowerHistogram;
  lower.fill(0);
  let eligible = 0;
  for (let i = 0; i < n; i++) {
    const f = flags[i]!;
    const a = author[i]!;
    if (
      f === 0 ||
      excluded[i] === 1 ||
      authorBlocked[a] === 1 ||
      (f & skippedFlags) !== 0 ||
      (filterLanguages && language[i] !== 0 && languageAllowed[language[i]!] !== 1) ||
      (anyTagMuted && (f & SLOT_TAGGED) !== 0 && hasMutedTag(slots[i]!.tagIds, tagMuted)) ||
      (collab !== undefined && (f & SLOT_EXTRA) !== 0 && collab[i] === 0) ||
      createdAt[i]! > createdNotAfterMs
    ) {
      scores[i] = -1;
      continue;
    }
    // recencyAt, inlined.
    const created = createdAt[i]!;
    const fresh =
      created >= nowMs
        ? 1
        : recencyValues !== undefined
          ? recencyValues[i]! * recencyFactor
          : recencyFeature(nowMs - created, halfLifeHours);
    const e = engagement[i]!;
    // The positives cold start: a post nobody engaged with gets no recency either (see RankingOptions.coldStartEngagement).
    let total = wEngagement * e * invMaxEngagement + (positives && e === 0 ? 0 : wRecency * fresh);
    if (trend !== undefined) total += wTrending * trend[i]!;
    else total += wAuthor * authorFeature[a]!;
    if (collab !== undefined) total += wCollab * collab[i]!;
    positions[eligible++] = i;
    const clamped = clamp01(total);
    // With the cosine to come, keep the partial sum (its clamp is the lower bound).
    scores[i] = semanticWeight > 0 ? total : clamped;
    lower[scoreBucket(clamped)]! += 1;
  }
  if (semanticWeight === 0) return { eligible, exact: eligible, deferred: 0, histogram: lower, lower };
  // Every eligible post waits, then those that may be among the first k get their cosine.
  p.ctx.scratch.deferred.set(positions.subarray(0, eligible));
  const scored: Scored = { eligible, exact: 0, deferred: eligible, histogram: p.ctx.scratch.histogram, lower };
  scored.histogram.fill(0);
  scoreDeferred(p, scored, firstK(eligible, limit));
  return scored;
}

/** Gives their final score to the deferred posts that may be among the best k (all when k covers every eligible post). */
function scoreDeferred(p: Pass, scored: Scored, k: number): void {
  const { scores, eligible: positions, deferred, interest } = p.ctx.scratch;
  const { vectorLength, vectorIds, vectorWeights } = p.index.columns;
  const { semanticWeight } = p;
  const { interestNorm } = p.ctx;
  const histogram = scored.histogram;
  // At least k posts score at least `bound`: a post whose upper bound is below it is not in the best k.
  const bound = scored.eligible > k ? scoreAtLeast(scored.lower, k) : -Infinity;
  let left = 0;
  for (let d = 0; d < scored.deferred; d++) {
    const i = deferred[d]!;
    const partial = scores[i]!;
    if (clamp01(partial + semanticWeight) < bound) {
      deferred[left++] = i;
      continue;
    }
    // The cosine, summed in term order as `cosineAt` does.
    const end = i * MAX_VECTOR_TERMS + vectorLength[i]!;
    let dot = 0;
    for (let j = i * MAX_VECTOR_TERMS; j < end; j++) dot += vectorWeights[j]! * interest[vectorIds[j]!]!;
    const cos = dot / interestNorm;
    const score = clamp01(partial + semanticWeight * (cos < 0 ? 0 : cos > 1 ? 1 : cos));
    scores[i] = score;
    histogram[scoreBucket(score)]! += 1;
    positions[scored.exact++] = i;
  }
  scored.deferred = left;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** Cosine of slot i's unit vector and the (non-zero) interest vector, negatives (disliked topics) as 0. */
function cosineAt(p: Pass, i: number): number {
  const { vectorLength, vectorIds, vectorWeights } = p.index.columns;
  const interest = p.ctx.scratch.interest;
  const end = i * MAX_VECTOR_TERMS + vectorLength[i]!;
  let dot = 0;
  for (let j = i * MAX_VECTOR_TERMS; j < end; j++) dot += vectorWeights[j]! * interest[vectorIds[j]!]!;
  const cos = dot / p.ctx.interestNorm;
  return cos < 0 ? 0 : cos > 1 ? 1 : cos;
}

/** How the recency feature is computed for one pass (see `CandidateIndex.recencyTable`). */
interface RecencyPass {
  /** 2^((createdAt − ref)/h) by slot, or undefined for a half-life the table cannot take (then the formula runs per slot). */
  readonly values: Float64Array | undefined;
  /** 2^((ref − now)/h). */
  readonly factor: number;
  readonly halfLifeHours: number;
}

function recencyPass(index: CandidateIndex, halfLifeHours: number, nowMs: number): RecencyPass {
  if (!(halfLifeHours > 0 && Number.isFinite(halfLifeHours) && Number.isFinite(nowMs))) {
    return { values: undefined, factor: 0, halfLifeHours };
  }
  const table = index.recencyTable(halfLifeHours, nowMs);
  return { values: table.values, factor: Math.pow(2, (table.refMs - nowMs) / table.halfLifeMs), halfLifeHours };
}

/** recencyFeature(nowMs − createdAt, h), with one multiplication instead of `Math.exp` (equal within a few ulps). */
function recencyAt(r: RecencyPass, i: number, createdAtMs: number, nowMs: number): number {
  // A post from the future counts as brand new (as in recencyFeature).
  if (createdAtMs >= nowMs) return 1;
  return r.values === undefined ? recencyFeature(nowMs - createdAtMs, r.halfLifeHours) : r.values[i]! * r.factor;
}

/** The cold-start weights in the shape of `Weights` (trending is added separately). */
function coldAsWeights(cold: ColdStartWeights): Required<Weights> {
  return {
    author_preference: 0,
    content_engagement: cold.content_engagement,
    recency: cold.recency,
    semantic_similarity: 0,
    collaborative: 0,
  };
}

function hasMutedTag(tagIds: Int32Array, tagMuted: Uint8Array): boolean {
  for (let j = 0; j < tagIds.length; j++) if (tagMuted[tagIds[j] ?? 0] === 1) return true;
  return false;
}

/** The semantic feature of a slot (0 without interests). */
function semantic(p: Pass, slot: Slot): number {
  return p.ctx.interestNorm === 0 ? 0 : cosineAt(p, slot.index);
}

/**
 * Greedy walk down the ranking, skipping a second post of a reblog group and authors at
 * their cap; when the whole pool is walked and the list is still short, the posts skipped for
 * their author's cap follow, in score order. It looks at the top k first and widens k only
 * when the rules skipped too many, which gives the same list as walking the fully sorted pool.
 */
function pickDiverse(p: Pass, scored: Scored, limit: number, perAuthorCap: number): Slot[] {
  const { scores, eligible: positions, authorPicks, groupTaken } = p.ctx.scratch;
  const { createdAt, author, group } = p.index.columns;
  const slots = p.index.slots;
  const tieBreak = (a: number, b: number): number => {
    const ia = slots[a]?.post.id ?? '';
    const ib = slots[b]?.post.id ?? '';
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  };
  const cap = Math.max(1, Math.floor(perAuthorCap));
  const walked: number[] = [];
  const reset = (): void => {
    for (const i of walked) {
      authorPicks[author[i]!] = 0;
      groupTaken[group[i]!] = 0;
    }
    walked.length = 0;
  };
  const { eligible } = scored;
  try {
    for (let k = firstK(eligible, limit); ; k = Math.min(eligible, k * 4)) {
      if (scored.deferred > 0 && k > firstK(eligible, limit)) scoreDeferred(p, scored, k);
      reset();
      const chosen: Slot[] = [];
      const input = {
        scores,
        createdAt,
        n: slots.length,
        tieBreak,
        eligible: { positions, count: scored.exact, histogram: scored.histogram },
      };
      const top = selectTopK(input, k);
      for (const i of top) {
        const a = author[i]!;
        const g = group[i]!;
        if (groupTaken[g] === 1 || authorPicks[a]! >= cap) continue;
        groupTaken[g] = 1;
        authorPicks[a]! += 1;
        walked.push(i);
        chosen.push(slots[i]!);
        if (chosen.length === limit) return chosen;
      }
      if (k < eligible) continue;
      // Short of the limit with posts skipped: those of authors at their cap fill the rest.
      return chosen.length < top.length ? fillPastCap(top, chosen, limit, p, walked) : chosen;
    }
  } finally {
    reset();
  }
}

/**
 * The whole pool walked and the list still short: what is left is by authors at their cap,
 * and it fills the rest of the list in score order, after the capped walk's picks. The cap
 * orders a list (every author's first posts first); it never shortens one the pool could fill:
 * a catalogue posted by a handful of accounts would otherwise get 3 posts per account, and the
 * list's top stays the same however deep it is ranked.
 */
function fillPastCap(top: readonly number[], chosen: Slot[], limit: number, p: Pass, walked: number[]): Slot[] {
  const { group } = p.index.columns;
  const { groupTaken } = p.ctx.scratch;
  for (const i of top) {
    if (chosen.length === limit) break;
    const g = group[i]!;
    if (groupTaken[g] === 1) continue;
    groupTaken[g] = 1;
    walked.push(i);
    chosen.push(p.index.slots[i]!);
  }
  return chosen;
}

function toItem(p: Pass, slot: Slot): RankedItem {
  const i = slot.index;
  const features: FeatureVector = {
    author_preference: p.cold ? 0.5 : (p.ctx.scratch.authorFeature[slot.authorIdx] ?? 0.5),
    content_engagement: p.engagement[i]! * p.invMaxEngagement,
    recency: p.positives && p.engagement[i] === 0 ? 0 : recencyAt(p.recency, i, slot.post.createdAtMs, p.nowMs),
    semantic_similarity: p.cold ? 0 : semantic(p, slot),
    collaborative: p.collab?.values[i] ?? 0,
  };
  // The tag and term are looked up only when the reason names them (most reasons do not).
  const reason = explainRanking(
    slot.post,
    features,
    p.weights,
    {
      coldStart: p.cold,
      get trendingTag() {
        return mostTrendingTag(p, slot);
      },
      get semanticTerm() {
        return bestMatchingTerm(p, slot);
      },
      get collaborativeSeed() {
        return collaborativeSeed(p, slot);
      },
    },
    p.personalReasonShare,
  );
  return {
    post: slot.post,
    score: p.ctx.scratch.scores[i] ?? 0,
    features,
    reasonCode: reason.reasonCode,
    reasonText: reason.reasonText,
    coldStart: p.cold,
  };
}

/** The post the user engaged with that lifted this one most: its author and a tag (one both carry, else its first). */
function collaborativeSeed(p: Pass, slot: Slot): { username: string; tag: string | undefined } | undefined {
  const seedId = p.collab?.seeds.get(slot.index);
  const seed = seedId === undefined ? undefined : p.index.get(seedId);
  if (seed === undefined) return undefined;
  const shared = seed.tags.find((tag) => slot.post.tags.includes(tag));
  return { username: seed.accountUsername, tag: shared ?? seed.tags[0] };
}

function mostTrendingTag(p: Pass, slot: Slot): string | undefined {
  // Read only when a reason names a trending tag: the trend state is recomputed after the pool changed.
  const trend = p.index.trendScores(p.nowMs);
  let best: number | undefined;
  let bestScore = 0;
  for (const id of slot.tagIds) {
    const s = trend[id] ?? 0;
    if (s > bestScore) [best, bestScore] = [id, s];
  }
  return best === undefined ? undefined : p.index.vocabulary.term(best).slice(1);
}

/** The post's term contributing most to the cosine, preferring a tag when one contributes. */
function bestMatchingTerm(p: Pass, slot: Slot): string | undefined {
  const interest = p.ctx.scratch.interest;
  let bestWord: [number, number] | undefined;
  let bestTag: [number, number] | undefined;
  const { ids, weights } = slot.vector;
  for (let j = 0; j < ids.length; j++) {
    const id = ids[j] ?? 0;
    const c = (weights[j] ?? 0) * (interest[id] ?? 0);
    if (c <= 0) continue;
    const isTag = p.index.vocabulary.term(id).startsWith('#');
    if (isTag && (bestTag === undefined || c > bestTag[1])) bestTag = [id, c];
    if (!isTag && (bestWord === undefined || c > bestWord[1])) bestWord = [id, c];
  }
  const best = bestTag ?? bestWord;
  return best === undefined ? undefined : p.index.vocabulary.term(best[0]);
}

/**
 * Ranks the candidate pool for one user: one pass scoring every eligible slot, top-k
 * selection, then the diversity rules (one post per reblog group, a cap per author).
 */
import type { CandidateIndex, Slot } from './candidate-index.js';
import { recencyFeature } from './features.js';
import { isColdStart, type UserProfile } from './profile.js';
import type { AlgorithmConfig, FeatureVector, RankedItem, RankingOptions, Weights } from './ranking.types.js';
import { DEFAULT_PER_AUTHOR_CAP, DEFAULT_RECENCY_HALF_LIFE_HOURS } from './ranking.types.js';
import { explainRanking } from './reasons.js';
import { selectTopK } from './top-k.js';
import { prepareUserContext, type UserContext } from './user-context.js';
import { effectiveWeights } from './weights.js';

/**
 * Without history the author and semantic features say nothing, so cold start ignores the
 * variant's weights and ranks by what the community engages with now: engagement, then
 * recency, then how strongly the post's tags trend.
 */
export const COLD_START_WEIGHTS = { content_engagement: 0.5, recency: 0.3, trending: 0.2 } as const;

interface Pass {
  readonly index: CandidateIndex;
  readonly ctx: UserContext;
  readonly weights: Weights;
  readonly cold: boolean;
  readonly nowMs: number;
  readonly halfLifeHours: number;
  readonly invMaxEngagement: number;
  readonly trend: Float64Array;
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
  const maxEngagement = index.engagementMax();
  const ctx = prepareUserContext(index, profile, options.nowMs, options.excludeIds ?? []);
  try {
    const pass: Pass = {
      index,
      ctx,
      weights: effectiveWeights(config),
      cold: isColdStart(profile),
      nowMs: options.nowMs,
      halfLifeHours: options.recencyHalfLifeHours ?? DEFAULT_RECENCY_HALF_LIFE_HOURS,
      invMaxEngagement: maxEngagement > 0 ? 1 / maxEngagement : 0,
      trend: index.trendScores(options.nowMs),
    };
    const eligible = scoreAll(pass);
    const chosen = pickDiverse(pass, eligible, limit, options.perAuthorCap ?? DEFAULT_PER_AUTHOR_CAP);
    return chosen.map((slot) => toItem(pass, slot));
  } finally {
    ctx.release();
  }
}

/** Writes every slot's score into the scratch (−1 when not eligible); returns the eligible count. */
function scoreAll(p: Pass): number {
  const { scores, createdAt, excluded, authorBlocked, tagMuted, authorFeature } = p.ctx.scratch;
  const { languages, includeReblogs } = p.ctx;
  const { cold, nowMs, halfLifeHours, invMaxEngagement } = p;
  const w = cold ? COLD_AS_WEIGHTS : p.weights;
  const useSemantic = !cold && w.semantic_similarity > 0 && p.ctx.interestNorm > 0;
  const slots = p.index.slots;
  let eligible = 0;
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i];
    scores[i] = -1;
    if (slot === undefined || excluded[i] === 1 || authorBlocked[slot.authorIdx] === 1) continue;
    const post = slot.post;
    if (!includeReblogs && post.reblogOfId !== null) continue;
    if (languages !== null && slot.language !== null && !languages.has(slot.language)) continue;
    if (slot.tagIds.length > 0 && hasMutedTag(slot.tagIds, tagMuted)) continue;
    createdAt[i] = post.createdAtMs;
    let total =
      w.content_engagement * slot.engagement * invMaxEngagement + w.recency * recencyFeature(nowMs - post.createdAtMs, halfLifeHours);
    if (cold) total += COLD_START_WEIGHTS.trending * trendOf(p, slot);
    else total += w.author_preference * (authorFeature[slot.authorIdx] ?? 0.5);
    if (useSemantic) total += w.semantic_similarity * semantic(p, slot);
    scores[i] = total < 0 ? 0 : total > 1 ? 1 : total;
    eligible += 1;
  }
  return eligible;
}

/** The cold-start weights in the shape of `Weights` (trending is added separately). */
const COLD_AS_WEIGHTS: Weights = {
  author_preference: 0,
  content_engagement: COLD_START_WEIGHTS.content_engagement,
  recency: COLD_START_WEIGHTS.recency,
  semantic_similarity: 0,
};

function hasMutedTag(tagIds: Int32Array, tagMuted: Uint8Array): boolean {
  for (let j = 0; j < tagIds.length; j++) if (tagMuted[tagIds[j] ?? 0] === 1) return true;
  return false;
}

/** Cosine of the post's unit vector and the interest vector, negatives (disliked topics) as 0. */
function semantic(p: Pass, slot: Slot): number {
  if (p.ctx.interestNorm === 0) return 0;
  const interest = p.ctx.scratch.interest;
  const { ids, weights } = slot.vector;
  let dot = 0;
  for (let j = 0; j < ids.length; j++) dot += (weights[j] ?? 0) * (interest[ids[j] ?? 0] ?? 0);
  const cos = dot / p.ctx.interestNorm;
  return cos < 0 ? 0 : cos > 1 ? 1 : cos;
}

function trendOf(p: Pass, slot: Slot): number {
  let best = 0;
  for (let j = 0; j < slot.tagIds.length; j++) {
    const t = p.trend[slot.tagIds[j] ?? 0] ?? 0;
    if (t > best) best = t;
  }
  return best;
}

/**
 * Greedy walk down the ranking, skipping a second post of a reblog group and authors at
 * their cap. It looks at the top k first and widens k only when the rules skipped too
 * many, which gives the same list as walking the fully sorted pool.
 */
function pickDiverse(p: Pass, eligible: number, limit: number, perAuthorCap: number): Slot[] {
  const { scores, createdAt } = p.ctx.scratch;
  const slots = p.index.slots;
  const tieBreak = (a: number, b: number): number => {
    const ia = slots[a]?.post.id ?? '';
    const ib = slots[b]?.post.id ?? '';
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  };
  const input = { scores, createdAt, n: slots.length, tieBreak };
  const cap = Math.max(1, Math.floor(perAuthorCap));
  for (let k = Math.min(eligible, limit * 4 + 16); ; k = Math.min(eligible, k * 4)) {
    const chosen: Slot[] = [];
    const groups = new Set<string>();
    const perAuthor = new Map<number, number>();
    for (const i of selectTopK(input, k)) {
      const slot = slots[i];
      if (slot === undefined) continue;
      const group = slot.post.reblogOfId ?? slot.post.id;
      const count = perAuthor.get(slot.authorIdx) ?? 0;
      if (groups.has(group) || count >= cap) continue;
      groups.add(group);
      perAuthor.set(slot.authorIdx, count + 1);
      chosen.push(slot);
      if (chosen.length === limit) return chosen;
    }
    if (k >= eligible) return chosen;
  }
}

function toItem(p: Pass, slot: Slot): RankedItem {
  const i = slot.index;
  const features: FeatureVector = {
    author_preference: p.cold ? 0.5 : (p.ctx.scratch.authorFeature[slot.authorIdx] ?? 0.5),
    content_engagement: slot.engagement * p.invMaxEngagement,
    recency: recencyFeature(p.nowMs - slot.post.createdAtMs, p.halfLifeHours),
    semantic_similarity: p.cold ? 0 : semantic(p, slot),
  };
  const reason = explainRanking(slot.post, features, p.weights, {
    coldStart: p.cold,
    trendingTag: mostTrendingTag(p, slot),
    semanticTerm: bestMatchingTerm(p, slot),
  });
  return { post: slot.post, score: p.ctx.scratch.scores[i] ?? 0, features, ...reason, coldStart: p.cold };
}

function mostTrendingTag(p: Pass, slot: Slot): string | undefined {
  let best: number | undefined;
  let bestScore = 0;
  for (const id of slot.tagIds) {
    const s = p.trend[id] ?? 0;
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

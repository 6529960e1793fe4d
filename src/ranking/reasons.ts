/**
 * Why a post was recommended: the feature that lifted its score the most, turned into
 * one of the spec's reason codes and a sentence naming the real cause (in English, from
 * the one table of reason sentences, ./reason-text.ts; other languages at the wire).
 */
import type { FeatureVector, RankablePost, ReasonCode, Weights } from './ranking.types.js';
import { renderReason, type ReasonMessage } from './reason-text.js';

/** What the ranker found out about one post beyond its features. */
export interface ReasonContext {
  /** The user had no history: the cold-start ranking was used. */
  readonly coldStart: boolean;
  /** The post's most trending tag, if it carries one. */
  readonly trendingTag: string | undefined;
  /** The term (a word, or `#tag`) that matched the user's interests the most. */
  readonly semanticTerm: string | undefined;
  /** The post the user engaged with that lifted this one's collaborative feature most: its author and a tag. */
  readonly collaborativeSeed?: { readonly username: string; readonly tag: string | undefined } | undefined;
}

/** A reason code and its human text. */
export interface Reason {
  readonly reasonCode: ReasonCode;
  readonly reasonText: string;
}

function reason(reasonCode: ReasonCode, message: ReasonMessage): Reason {
  return { reasonCode, reasonText: renderReason(message) };
}

/**
 * Weighted lift of each feature above its neutral value, on a [0, 1] scale: the author
 * feature counts only above the unknown-author 0.5 (so (f − 0.5) / 0.5), the others from 0.
 */
export function featureLifts(features: FeatureVector, weights: Weights): FeatureVector {
  return {
    author_preference: weights.author_preference * Math.max(0, (features.author_preference - 0.5) / 0.5),
    content_engagement: weights.content_engagement * features.content_engagement,
    recency: weights.recency * features.recency,
    semantic_similarity: weights.semantic_similarity * features.semantic_similarity,
    collaborative: (weights.collaborative ?? 0) * features.collaborative,
  };
}

/**
 * The reason of a ranked post: AUTHOR_INTERACTION, SEMANTIC_MATCH or COLLABORATIVE when
 * that personal feature lifted the score the most of the three and at least
 * `personalShare` of the most any feature did (1, the default: it lifted it most of all);
 * otherwise engagement or recency did, and the post is shown as TRENDING_TAG when it carries
 * a trending tag, else HIGH_ENGAGEMENT. Ties go to the author, then the semantic match.
 */
export function explainRanking(
  post: RankablePost,
  features: FeatureVector,
  weights: Weights,
  context: ReasonContext,
  personalShare = 1,
): Reason {
  if (context.coldStart) {
    return context.trendingTag !== undefined
      ? reason('TRENDING_TAG', { key: 'trending_cold_start', params: { tag: context.trendingTag } })
      : reason('HIGH_ENGAGEMENT', { key: 'popular_cold_start' });
  }
  const lifts = featureLifts(features, weights);
  const best = Math.max(lifts.author_preference, lifts.semantic_similarity, lifts.collaborative, lifts.content_engagement, lifts.recency);
  const personal = Math.max(lifts.author_preference, lifts.semantic_similarity, lifts.collaborative);
  if (best > 0 && personal > 0 && personal >= personalShare * best) {
    if (lifts.author_preference === personal) {
      return reason('AUTHOR_INTERACTION', { key: 'author_interaction', params: { username: post.accountUsername } });
    }
    if (lifts.semantic_similarity === personal) {
      const term = context.semanticTerm;
      return term === undefined
        ? reason('SEMANTIC_MATCH', { key: 'semantic_match' })
        : reason('SEMANTIC_MATCH', { key: 'semantic_match_about', params: { term: quoteTerm(term) } });
    }
    return collaborativeReason(context.collaborativeSeed);
  }
  if (context.trendingTag !== undefined) {
    return reason('TRENDING_TAG', { key: 'trending', params: { tag: context.trendingTag } });
  }
  // A fresh post that led on recency has not earned "popular" yet: say what is true.
  const popular = lifts.content_engagement >= lifts.recency || features.content_engagement >= 0.5;
  return reason('HIGH_ENGAGEMENT', { key: popular ? 'popular' : 'fresh' });
}

/** "Liked by people who liked @ana's post about #rust", as much of it as is known. */
function collaborativeReason(seed: ReasonContext['collaborativeSeed']): Reason {
  if (seed === undefined) return reason('COLLABORATIVE', { key: 'collaborative' });
  return seed.tag === undefined
    ? reason('COLLABORATIVE', { key: 'collaborative_post', params: { username: seed.username } })
    : reason('COLLABORATIVE', { key: 'collaborative_post_about', params: { username: seed.username, tag: seed.tag } });
}

function quoteTerm(term: string): string {
  return term.startsWith('#') ? term : `“${term}”`;
}

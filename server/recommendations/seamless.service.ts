/**
 * Seamless timeline enhancement: recommendations for posts not already in the client's
 * timeline, each with the position to insert it at (about 0.3 of the timeline's length,
 * never at the top, never two adjacent).
 */
import { DEFAULT_INJECTION_RATIO, planSeamlessInsertions } from '../../src/ranking/index.js';
import type { SeamlessItem } from '../../src/schemas/recommendation.schema.js';
import type { FeedbackService } from './feedback.service.js';
import { toRecommendedPost, type RecommendationService } from './recommendation.service.js';

export interface SeamlessRequest {
  userId: string;
  existingIds: readonly string[];
  maxRecommendations: number;
}

export class SeamlessService {
  constructor(
    private readonly recommendations: RecommendationService,
    private readonly preferences: FeedbackService,
  ) {}

  /** Items with insertion points, in timeline order. */
  async plan(request: SeamlessRequest): Promise<SeamlessItem[]> {
    const length = request.existingIds.length;
    const ratio = (await this.preferences.recommendationRatio(request.userId)) ?? DEFAULT_INJECTION_RATIO;
    const wanted = Math.min(request.maxRecommendations, Math.max(0, Math.round(ratio * length)));
    if (wanted === 0) return [];
    const ranked = await this.recommendations.recommend(request.userId, { limit: wanted, excludeIds: request.existingIds });
    const points = planSeamlessInsertions(length, ranked.length, request.maxRecommendations, ratio);
    return points.flatMap((point, k) => {
      const recommendation = ranked[k];
      if (!recommendation) return [];
      const post = toRecommendedPost(recommendation);
      return [
        {
          id: `rec_${post.id}`,
          content: recommendation.status,
          score: post.ranking_score,
          reason: post.recommendation_reason,
          insertion_point: point,
          recommendation_metadata: post.recommendation_metadata,
        },
      ];
    });
  }
}

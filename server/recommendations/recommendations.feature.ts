/** Registers the recommendations feature; the ranking policy defaults to `defaultRankingPolicy`. */
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../platform/context.js';
import type { PrivacyPolicy } from '../privacy/privacy-policy.types.js';
import type { InteractionService } from '../interactions/interaction.service.js';
import type { PostService } from '../posts/post.service.js';
import type { RankingState } from '../ranking-state/ranking-state.service.js';
import { defaultRankingPolicy } from './default-ranking-policy.js';
import type { FeedbackMeasurement } from './feedback-measurement.types.js';
import { FeedbackService } from './feedback.service.js';
import { preferencesRoutes } from './preferences.routes.js';
import { cacheWarmerAgent } from './cache-warmer.agent.js';
import { registerItemModel } from '../ranking-state/item-model.feature.js';
import { registerRankingFit } from '../ranking-state/ranking-fit.feature.js';
import { backfillInterests } from './profile-loader.js';
import type { RankingPolicy } from './ranking-policy.types.js';
import { recommendationRoutes } from './recommendation.routes.js';
import { RecommendationService } from './recommendation.service.js';
import { SeamlessService } from './seamless.service.js';

export interface RecommendationsDeps {
  ranking: RankingState;
  posts: PostService;
  interactions: InteractionService;
  /** Experiments plug in here; without one every user gets the default ranking. */
  policy?: RankingPolicy;
  /** What feedback reports for experiment measurement (experimentMeasurement); nothing without one. */
  measurement?: FeedbackMeasurement;
}

/** Recommendation, seamless, feedback and preferences routes. */
export async function registerRecommendations(
  app: FastifyInstance,
  context: Pick<PlatformContext, 'database' | 'agents' | 'agentIntervalSeconds' | 'metrics'> & { privacy: PrivacyPolicy },
  deps: RecommendationsDeps,
): Promise<RecommendationService> {
  const policy = deps.policy ?? defaultRankingPolicy;
  const sources = {
    db: context.database.db,
    state: deps.ranking,
    posts: deps.posts,
    interactions: deps.interactions,
    privacy: context.privacy,
  };
  await backfillInterests(sources, (message) => app.log.info(message));
  context.agents.register(cacheWarmerAgent(sources, { intervalSeconds: context.agentIntervalSeconds * 15 }));
  // The periodic item–item model served beside the co-engagement state (docs/ranking.md, "The periodic item–item model").
  const modelBuild = registerItemModel(
    context.agents,
    { db: context.database.db, state: deps.ranking, sharedTarget: context.database.sharedTarget },
    { intervalSeconds: context.agentIntervalSeconds, log: (line) => app.log.info(line) },
  );
  // The default ranking fitted to this community's own interactions (docs/ranking.md, "Fitted to
  // the community"); after an import the trigger brings the pool to the imported history's end
  // (the posts feature's candidate_pool_refresh agent), builds the model, then fits with it.
  const stopFitTrigger = registerRankingFit(
    context.agents,
    { db: context.database.db, state: deps.ranking, sharedTarget: context.database.sharedTarget },
    { intervalSeconds: context.agentIntervalSeconds, log: (line) => app.log.info(line), before: ['candidate_pool_refresh', ...modelBuild] },
  );
  app.addHook('onClose', async () => stopFitTrigger());
  const recommendations = new RecommendationService(sources, context.metrics, policy);
  const feedback = new FeedbackService(sources, policy, context.privacy, deps.measurement);
  await app.register(recommendationRoutes, { recommendations, seamless: new SeamlessService(recommendations, feedback) });
  await app.register(preferencesRoutes, { feedback });
  return recommendations;
}

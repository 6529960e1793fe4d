/**
 * The feature list: each feature folder registers its routes (and agents) here,
 * one line each, so app.ts stays about cross-cutting concerns.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from './app.js';
import { registerInteractions } from './interactions/interactions.feature.js';
import { registerAnalytics } from './analytics/analytics.feature.js';
import { registerExperiments } from './experiments/experiments.feature.js';
import { candidatePosts } from './posts/post.service.js';
import { registerOAuth } from './oauth/oauth.feature.js';
import { registerPosts } from './posts/posts.feature.js';
import { loadRankingState } from './ranking-state/ranking-state.service.js';
import { FeedbackService } from './recommendations/feedback.service.js';
import { registerRecommendations } from './recommendations/recommendations.feature.js';
import { registerTimelines } from './timelines/timelines.feature.js';
import { mayStoreStatus } from './timelines/timelines.service.js';
import { registerProxy } from './proxy/proxy.feature.js';
import { interactionLogger } from './proxy/proxy-interactions.js';
import type { StatusInput } from '../src/schemas/post.schema.js';

/** Registers every feature's routes and agents. */
export async function registerFeatures(app: FastifyInstance, context: AppContext): Promise<void> {
  // The one owner of the in-memory ranking state; features announce their writes to it.
  const db = context.database.db;
  const ranking = await loadRankingState((limits) => candidatePosts(db, limits), context.caches);
  context.metrics.watchCaches(() => ranking.cacheSizes());
  const { posts } = await registerPosts(app, context, ranking);
  const interactions = await registerInteractions(app, context, { ranking, posts });
  const { rankingPolicy } = await registerExperiments(app, context);
  await registerAnalytics(app, context);
  const recommendations = await registerRecommendations(app, context, { ranking, posts, interactions, policy: rankingPolicy });
  await registerOAuth(app, context, context.oauth);
  await registerTimelines(app, context, {
    posts,
    recommendations,
    interactions,
    preferences: new FeedbackService({ db, state: ranking, posts, interactions }, rankingPolicy),
  });
  // Last: drop-in mode proxies only what no route above matched.
  if (context.proxy) {
    await registerProxy(app, context, {
      dropIn: true,
      onForwarded: interactionLogger({
        interactions,
        storeStatus: async (status) => {
          await posts.ingest([status as unknown as StatusInput]);
        },
        mayStore: mayStoreStatus,
      }),
    });
  }
}

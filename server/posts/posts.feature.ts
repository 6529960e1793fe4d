/** Registers the posts feature: routes, the trending agent; returns its services. */
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../platform/context.js';
import type { SourceShares } from '../../src/ranking/index.js';
import type { RankingState } from '../ranking-state/ranking-state.service.js';
import { postRoutes } from './post.routes.js';
import { PostService } from './post.service.js';
import { candidatePoolRefreshAgent } from './candidate-pool.agent.js';
import { trendingRefreshAgent } from './trending.agent.js';
import { TrendingService, type EngagerSource } from './trending.service.js';

export interface PostsFeature {
  posts: PostService;
  trending: TrendingService;
}

/** What the feature takes from the app's context. */
export interface PostsContext extends Pick<PlatformContext, 'database' | 'agents' | 'agentIntervalSeconds'> {
  /** Largest share of the candidate pool and of a trending page per source instance and author. */
  sourceShares: SourceShares;
}

/**
 * Posts routes and the `trending_refresh` and `candidate_pool_refresh` agents. Who engaged with
 * the posts trending counts is the interactions feature's to say: `engagers` (wired in features.ts).
 */
export async function registerPosts(
  app: FastifyInstance,
  context: PostsContext,
  ranking: RankingState,
  engagers: EngagerSource,
): Promise<PostsFeature> {
  const posts = new PostService(context.database.db, ranking);
  const trending = new TrendingService(context.database.db, engagers, context.sourceShares);
  context.agents.register(trendingRefreshAgent(trending, context.agentIntervalSeconds));
  context.agents.register(candidatePoolRefreshAgent(ranking, context.database.db, context.agentIntervalSeconds * 15, context.sourceShares));
  await app.register(postRoutes, { posts, trending });
  return { posts, trending };
}

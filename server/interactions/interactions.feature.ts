/** Registers the interactions feature; returns its service. */
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../platform/context.js';
import type { PostService } from '../posts/post.service.js';
import type { PrivacyPolicy } from '../privacy/privacy-policy.types.js';
import type { RankingState } from '../ranking-state/ranking-state.service.js';
import type { InteractionMeasurement } from './interaction-measurement.types.js';
import { interactionRoutes } from './interaction.routes.js';
import { InteractionService } from './interaction.service.js';

/** Interaction routes. */
export async function registerInteractions(
  app: FastifyInstance,
  context: Pick<PlatformContext, 'database'>,
  deps: { ranking: RankingState; posts: PostService; privacy?: PrivacyPolicy; measurement?: InteractionMeasurement },
): Promise<InteractionService> {
  const interactions = new InteractionService(context.database.db, deps.ranking, deps.posts, deps.privacy, deps.measurement);
  await app.register(interactionRoutes, { interactions });
  return interactions;
}

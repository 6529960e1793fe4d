/** Registers the blended timelines (Mastodon's timeline paths); returns the service. */
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../platform/context.js';
import type { PostService } from '../posts/post.service.js';
import type { RecommendationService } from '../recommendations/recommendation.service.js';
import { timelineRoutes } from './timelines.routes.js';
import { RecommendationEngagement, type InteractedPosts } from './engagement.js';
import { TimelineService, type TimelineDeps } from './timelines.service.js';

export interface TimelinesDeps {
  posts: PostService;
  recommendations: RecommendationService;
  /** The user's recommendation_ratio (FeedbackService); without it the default ratios apply. */
  preferences?: TimelineDeps['preferences'];
  /** The ranking state (its user versions): with it a user's ratio is read once while their signals are unchanged. */
  ranking?: TimelineDeps['ranking'];
  /**
   * The interactions feature: with it, users whose engagement rate (interactions per
   * injected recommendation, ./engagement.ts) is above 0.7 get 0.4 of the page.
   */
  interactions?: InteractedPosts;
}

/** Counts recommendations sent per reader's instance (service_instance_injected_statuses_total). */
function injectedCounter(metrics: PlatformContext['metrics']): (instance: string, count: number) => void {
  return (instance, count) => metrics.injectedStatuses.inc({ instance: metrics.instanceLabel(instance) }, count);
}

/** `GET /api/v1/timelines/home`, `/public`, `/tag/:hashtag`. */
export async function registerTimelines(
  app: FastifyInstance,
  context: Pick<PlatformContext, 'social'> & Partial<Pick<PlatformContext, 'metrics'>> & { readonly proxy?: boolean },
  deps: TimelinesDeps,
): Promise<{ timelines: TimelineService }> {
  const engagement = deps.interactions ? new RecommendationEngagement(deps.interactions) : undefined;
  const timelines = new TimelineService({
    client: context.social.client,
    posts: deps.posts,
    recommendations: deps.recommendations,
    ...(deps.preferences ? { preferences: deps.preferences } : {}),
    ...(deps.ranking ? { ranking: deps.ranking } : {}),
    ...(engagement
      ? { engagementRate: (userId: string) => engagement.rate(userId), onInjected: engagement.noteServed.bind(engagement) }
      : {}),
    newPostsPerHour: context.social.options.newPostsPerHour,
    recommendationStyle: context.social.options.timelineRecommendations,
    ...(context.metrics ? { onInjectedAt: injectedCounter(context.metrics) } : {}),
    log: app.log,
  });
  // Drop-in mode answers anonymous readers of the public and tag timelines, as Mastodon does.
  await app.register(timelineRoutes, { timelines, identityProvider: context.social.identityProvider, anonymous: context.proxy === true });
  return { timelines };
}

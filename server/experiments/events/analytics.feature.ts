/** Registers the analytics feature: client events. */
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../../platform/context.js';
import type { PrivacyPolicy } from '../../privacy/privacy-policy.types.js';
import { analyticsRoutes } from './analytics.routes.js';
import { AnalyticsService } from './analytics.service.js';

/** The events route; returns its service. */
export async function registerAnalytics(
  app: FastifyInstance,
  context: Pick<PlatformContext, 'database' | 'metrics'>,
  deps: { privacy?: PrivacyPolicy; now?: () => number } = {},
): Promise<AnalyticsService> {
  const analytics = new AnalyticsService(context.database.db, context.metrics, deps.now, deps.privacy);
  await app.register(analyticsRoutes, { analytics });
  return analytics;
}

/** Registers the analytics feature: client events. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.js';
import type { PrivacyPolicy } from '../privacy/privacy-policy.types.js';
import { analyticsRoutes } from './analytics.routes.js';
import { AnalyticsService } from './analytics.service.js';

/** The events route; returns its service. */
export async function registerAnalytics(
  app: FastifyInstance,
  context: AppContext,
  deps: { privacy?: PrivacyPolicy; now?: () => number } = {},
): Promise<AnalyticsService> {
  const analytics = new AnalyticsService(context.database.db, context.metrics, deps.now, deps.privacy);
  await app.register(analyticsRoutes, { analytics });
  return analytics;
}

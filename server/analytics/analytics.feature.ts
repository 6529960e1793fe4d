/** Registers the analytics feature: client events. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.js';
import { analyticsRoutes } from './analytics.routes.js';
import { AnalyticsService } from './analytics.service.js';

/** The events route; returns its service. */
export async function registerAnalytics(
  app: FastifyInstance,
  context: AppContext,
  now: () => number = Date.now,
): Promise<AnalyticsService> {
  const analytics = new AnalyticsService(context.database.db, context.metrics, now);
  await app.register(analyticsRoutes, { analytics });
  return analytics;
}

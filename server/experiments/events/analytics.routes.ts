/** `POST /api/v1/analytics/events`: a batch of client events (clicks, views, sessions). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, errorResponses } from '../../../src/schemas/common.schema.js';
import { authorizeUser } from '../../platform/plugins/access.js';
import { envelope } from '../../platform/http/envelope.js';
import { EventBatchResultSchema, EventBatchSchema } from './analytics.schema.js';
import type { AnalyticsService } from './analytics.service.js';

export const analyticsRoutes: FastifyPluginAsyncTypebox<{ analytics: AnalyticsService }> = async (app, { analytics }) => {
  app.post(
    '/api/v1/analytics/events',
    {
      // Each event names its user: every one must be the token's own (or the token an admin's).
      config: { access: { scope: 'write', user: 'resource', owner: "each event's `user_id`" } },
      schema: {
        tags: ['analytics'],
        summary: 'Report a batch of up to 500 client events',
        description:
          "All or nothing: a malformed event is 400 naming `events[i].field` and nothing is stored. A well-formed event that cannot be true (a click or view without an impression of that post served to that user, a second click on one impression, a timestamp more than 5 min ahead or 24 h behind, a session over 12 h...) is stored as rejected with its reason and never counts; the result says how many were accepted and why the rest were not. A user token may report its own user's events; an admin token anyone's.",
        operationId: 'postAnalyticsEvents',
        body: EventBatchSchema,
        response: { 201: Envelope(EventBatchResultSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { events } = request.body;
      events.forEach((event, i) => authorizeUser(request, event.user_id, `events[${i}].user_id`));
      const result = await analytics.record(events);
      return reply.code(201).send(envelope(request, result));
    },
  );
};

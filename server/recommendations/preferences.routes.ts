/** `/api/v1/recommendations/feedback` and `/api/v1/recommendations/preferences`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, errorResponses, UserIdSchema } from '../../src/schemas/common.schema.js';
import { FeedbackBodySchema, FeedbackSchema, PreferencesSchema, PreferencesUpdateSchema } from '../../src/schemas/recommendation.schema.js';
import { envelope } from '../platform/http/envelope.js';
import type { FeedbackService } from './feedback.service.js';

export const preferencesRoutes: FastifyPluginAsyncTypebox<{ feedback: FeedbackService }> = async (app, { feedback }) => {
  app.post(
    '/api/v1/recommendations/feedback',
    {
      config: { access: { scope: 'write', user: 'body.user_id' } },
      schema: {
        tags: ['recommendations'],
        summary: 'More or less of this kind of post (its author and tags); changes later rankings at once',
        operationId: 'postRecommendationFeedback',
        body: FeedbackBodySchema,
        response: { 201: Envelope(FeedbackSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      return reply.code(201).send(envelope(request, await feedback.feedback(b.user_id, b.post_id, b.feedback)));
    },
  );

  app.get(
    '/api/v1/recommendations/preferences',
    {
      config: { access: { scope: 'read', user: 'query.user_id' } },
      schema: {
        tags: ['recommendations'],
        summary: "A user's explicit and learned preferences",
        operationId: 'getRecommendationPreferences',
        querystring: Type.Object({ user_id: UserIdSchema }),
        response: { 200: Envelope(PreferencesSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request, await feedback.preferences(request.query.user_id)),
  );

  app.put(
    '/api/v1/recommendations/preferences',
    {
      config: { access: { scope: 'write', user: 'body.user_id' } },
      schema: {
        tags: ['recommendations'],
        summary: 'Set explicit preferences: favoured/muted authors and tags, languages, reblogs, sensitive posts, recommendation ratio',
        operationId: 'putRecommendationPreferences',
        body: PreferencesUpdateSchema,
        response: { 200: Envelope(PreferencesSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request, await feedback.updatePreferences(request.body)),
  );
};

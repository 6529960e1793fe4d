/** `/api/v1/interactions`: log, undo and list a user's interactions; a post's counts. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, errorResponses } from '../../src/schemas/common.schema.js';
import {
  DEFAULT_INTERACTIONS_PAGE,
  InteractionBatchResultSchema,
  InteractionBatchSchema,
  InteractionInputSchema,
  type InteractionInput,
  MAX_BATCH_INTERACTIONS,
  InteractionListQuerySchema,
  InteractionSchema,
  InteractionUndoSchema,
  PostCountsSchema,
} from '../../src/schemas/interaction.schema.js';
import { authorizeUser } from '../platform/plugins/access.js';
import { envelope } from '../platform/http/envelope.js';
import { keptQuery, setLinkHeader } from '../platform/http/paging.js';
import type { InteractionService, RecordInput } from './interaction.service.js';

/** The service's input of a wire interaction (`created_at` parsed: the schema checked it is an instant). */
function recordInput(body: InteractionInput): RecordInput {
  return {
    userId: body.user_id,
    postId: body.post_id,
    actionType: body.action_type,
    ...(body.context !== undefined ? { context: body.context } : {}),
    ...(body.created_at !== undefined ? { createdAtMs: Date.parse(body.created_at) } : {}),
  };
}

export const interactionRoutes: FastifyPluginAsyncTypebox<{ interactions: InteractionService }> = async (app, { interactions }) => {
  app.post(
    '/api/v1/interactions',
    {
      config: { access: { scope: 'write', user: 'body.user_id' } },
      schema: {
        tags: ['interactions'],
        summary:
          'Log an interaction (idempotent per user, post and action: 201 when new, 200 when it existed; ' +
          "202 when the user's tracking level is `none`: acknowledged, nothing stored)",
        operationId: 'createInteraction',
        body: InteractionInputSchema,
        response: {
          200: Envelope(InteractionSchema),
          201: Envelope(InteractionSchema),
          202: Envelope(InteractionSchema),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { interaction, created, stored } = await interactions.record(recordInput(request.body));
      return reply.code(!stored ? 202 : created ? 201 : 200).send(envelope(request, interaction));
    },
  );

  app.post(
    '/api/v1/interactions/batch',
    {
      // Each interaction names its user: every one must be the token's own (or the token an admin's).
      config: { access: { scope: 'write', user: 'resource', owner: "each interaction's `user_id`" } },
      schema: {
        tags: ['interactions'],
        summary: `Log up to ${MAX_BATCH_INTERACTIONS} interactions in one transaction (history with \`created_at\`: an import)`,
        description:
          'All or nothing: a malformed or refused interaction (a `created_at` in the future, before 1990 or before its post) ' +
          'is 400 naming it, e.g. `interactions[3].created_at`, a missing post 404 naming `interactions[i].post_id`, ' +
          'and nothing is stored. Each interaction is idempotent per user, post and action like a single write: ' +
          "`existing` when it was there already (unchanged, its time included), `not_stored` when its user's tracking " +
          'level is `none`. 201 when the batch stored at least one, else 200. A user token may log its own ' +
          "user's interactions; an admin token anyone's.",
        operationId: 'createInteractionsBatch',
        body: InteractionBatchSchema,
        response: {
          200: Envelope(InteractionBatchResultSchema),
          201: Envelope(InteractionBatchResultSchema),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const list = request.body.interactions;
      list.forEach((item, i) => authorizeUser(request, item.user_id, `interactions[${i}].user_id`));
      const results = await interactions.recordMany(list.map(recordInput));
      const count = (status: string): number => results.filter((r) => r.status === status).length;
      const data = { created: count('created'), existing: count('existing'), not_stored: count('not_stored'), results };
      return reply.code(data.created > 0 ? 201 : 200).send(envelope(request, data));
    },
  );

  app.post(
    '/api/v1/interactions/undo',
    {
      config: { access: { scope: 'write', user: 'body.user_id' } },
      schema: {
        tags: ['interactions'],
        summary: 'Undo an interaction (unfavourite, unreblog, unbookmark): its effect on counts and ranking goes too',
        operationId: 'undoInteraction',
        body: InteractionUndoSchema,
        response: { 200: Envelope(InteractionSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { user_id, post_id, action_type } = request.body;
      return envelope(request, await interactions.undo(user_id, post_id, action_type));
    },
  );

  app.delete(
    '/api/v1/interactions/:id',
    {
      // The owner is known once the interaction is loaded: the service hands it to authorizeUser.
      config: { access: { scope: 'write', user: 'resource', owner: "the interaction's user" } },
      schema: {
        tags: ['interactions'],
        summary: 'Undo an interaction by id',
        operationId: 'deleteInteraction',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { 200: Envelope(InteractionSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => envelope(request, await interactions.undoById(request.params.id, (userId) => authorizeUser(request, userId))),
  );

  app.get(
    '/api/v1/interactions',
    {
      config: { access: { scope: 'read', user: 'query.user_id' } },
      schema: {
        tags: ['interactions'],
        summary: "A user's interactions, newest first (own only, or admin)",
        operationId: 'listInteractions',
        querystring: InteractionListQuerySchema,
        response: { 200: Envelope(Type.Array(InteractionSchema)), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { user_id, action_type, max_id, limit = DEFAULT_INTERACTIONS_PAGE } = request.query;
      const list = await interactions.list(user_id, {
        ...(action_type !== undefined ? { actionType: action_type } : {}),
        ...(max_id !== undefined ? { maxId: max_id } : {}),
        limit,
      });
      // A full page may have more behind it: rel="next" continues below its oldest entry.
      const oldest = list.at(-1);
      if (oldest !== undefined && list.length === limit) {
        setLinkHeader(reply, request, [{ rel: 'next', query: { ...keptQuery(request, ['max_id']), max_id: oldest.id } }]);
      }
      return envelope(request, list);
    },
  );

  app.get(
    '/api/v1/interactions/counts/:post_id',
    {
      config: { access: 'public' },
      schema: {
        tags: ['interactions'],
        summary: "A post's favourite, reblog, reply and bookmark counts",
        operationId: 'getPostCounts',
        params: Type.Object({ post_id: Type.String({ maxLength: 64 }) }),
        response: { 200: Envelope(PostCountsSchema), ...errorResponses(404) },
      },
    },
    async (request) => envelope(request, await interactions.counts(request.params.post_id)),
  );
};

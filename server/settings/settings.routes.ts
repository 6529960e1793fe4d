/** `/api/v1/settings` (a user's own) and `/api/v1/settings/integration` (admin). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ValidationError } from '../../src/errors.js';
import { Envelope, errorResponses, UserIdSchema } from '../../src/schemas/common.schema.js';
import {
  IntegrationSettingsPatchSchema,
  IntegrationSettingsSchema,
  UserSettingsPatchSchema,
  UserSettingsSchema,
} from '../../src/settings/settings.schema.js';
import { envelope } from '../platform/http/envelope.js';
import { admittedUser, authorizeUser, callerIdentity } from '../platform/plugins/access.js';
import type { IntegrationSettingsService } from './integration-settings.service.js';
import type { UserSettingsService } from './user-settings.service.js';

export interface SettingsRoutesOptions {
  users: UserSettingsService;
  integration: IntegrationSettingsService;
}

export const settingsRoutes: FastifyPluginAsyncTypebox<SettingsRoutesOptions> = async (app, { users, integration }) => {
  app.get(
    '/api/v1/settings',
    {
      config: { access: { scope: 'read', user: 'resource', owner: "`query.user_id`, else the token's user" } },
      schema: {
        tags: ['settings'],
        summary: "A user's settings with defaults filled in (user_id: the token's own user when omitted)",
        operationId: 'getSettings',
        querystring: Type.Object({ user_id: Type.Optional(UserIdSchema) }),
        response: { 200: Envelope(UserSettingsSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const userId = request.query.user_id ?? callerIdentity(request).userId;
      if (userId === null) {
        throw new ValidationError('user_id is required: the token is not bound to a user', 'user_id');
      }
      authorizeUser(request, userId, request.query.user_id === undefined ? undefined : 'user_id');
      return envelope(request, await users.get(userId, request.headers['accept-language']));
    },
  );

  app.patch(
    '/api/v1/settings',
    {
      config: { access: { scope: 'write', user: 'body.user_id ?? token' } },
      schema: {
        tags: ['settings'],
        summary: "Change a user's settings: only the fields given change; null puts a setting back to its default",
        operationId: 'patchSettings',
        body: UserSettingsPatchSchema,
        response: { 200: Envelope(UserSettingsSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request, await users.update(admittedUser(request), request.body, request.headers['accept-language'])),
  );

  app.get(
    '/api/v1/settings/integration',
    {
      config: { access: { scope: 'admin' } },
      schema: {
        tags: ['settings'],
        summary: "The deployment's integration settings and when each takes effect",
        operationId: 'getIntegrationSettings',
        response: { 200: Envelope(IntegrationSettingsSchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request, integration.view()),
  );

  app.patch(
    '/api/v1/settings/integration',
    {
      config: { access: { scope: 'admin' } },
      schema: {
        tags: ['settings'],
        summary: 'Change integration settings: default instance, allowed instances, CORS origins, gate defaults',
        operationId: 'patchIntegrationSettings',
        body: IntegrationSettingsPatchSchema,
        response: { 200: Envelope(IntegrationSettingsSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request, await integration.update(request.body, callerIdentity(request).userId)),
  );
};

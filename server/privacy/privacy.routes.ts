/**
 * `/api/v1/privacy`: a user's tracking level (GET, PATCH), the export of everything held
 * about them (GET /export) and the erasure of all of it (DELETE /data). The caller's own user
 * by default; `?user_id=` names another, which only an admin may (403 otherwise).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../../src/errors.js';
import { Envelope, errorResponses } from '../../src/schemas/common.schema.js';
import { envelope } from '../platform/http/envelope.js';
import { authorizeUser, callerIdentity } from '../platform/plugins/access.js';
import type { PrivacyErasureService } from './privacy-erasure.service.js';
import {
  ErasureResultSchema,
  PrivacyExportSchema,
  PrivacyPatchResultSchema,
  PrivacyPatchSchema,
  PrivacyQuerySchema,
  PrivacySettingsSchema,
} from './privacy.schema.js';
import type { PrivacyService } from './privacy.service.js';

export interface PrivacyRoutesOptions {
  privacy: PrivacyService;
  erasure: PrivacyErasureService;
}

const OWNER = "`query.user_id`, else the token's user";

/** The user a request is about: `?user_id=` or the token's own; 403 unless it is the caller's or the caller is an admin. */
function subject(request: FastifyRequest, named: string | undefined): string {
  const userId = named ?? callerIdentity(request).userId;
  if (userId === null) throw new ValidationError('user_id is required: the token is not bound to a user', 'user_id');
  authorizeUser(request, userId, named === undefined ? undefined : 'user_id');
  return userId;
}

export const privacyRoutes: FastifyPluginAsyncTypebox<PrivacyRoutesOptions> = async (app, { privacy, erasure }) => {
  app.get(
    '/api/v1/privacy',
    {
      config: { access: { scope: 'read', user: 'resource', owner: OWNER } },
      schema: {
        tags: ['privacy'],
        summary: "A user's tracking level, whether they chose it, and what it lets the service store",
        operationId: 'getPrivacy',
        querystring: PrivacyQuerySchema,
        response: { 200: Envelope(PrivacySettingsSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request, privacy.view(subject(request, request.query.user_id))),
  );

  app.patch(
    '/api/v1/privacy',
    {
      config: { access: { scope: 'write', user: 'resource', owner: OWNER } },
      schema: {
        tags: ['privacy'],
        summary: "Change a user's tracking level; to none erases their tracking data, to limited their event-level rows",
        operationId: 'patchPrivacy',
        querystring: PrivacyQuerySchema,
        body: PrivacyPatchSchema,
        response: { 200: Envelope(PrivacyPatchResultSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request, await privacy.changeLevel(subject(request, request.query.user_id), request.body.tracking_level)),
  );

  app.get(
    '/api/v1/privacy/export',
    {
      config: { access: { scope: 'read', user: 'resource', owner: OWNER } },
      schema: {
        tags: ['privacy'],
        summary: 'Everything the service holds about a user, as one JSON document',
        operationId: 'exportPrivacyData',
        querystring: PrivacyQuerySchema,
        response: { 200: Envelope(PrivacyExportSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request, await privacy.exportUser(subject(request, request.query.user_id))),
  );

  app.delete(
    '/api/v1/privacy/data',
    {
      config: { access: { scope: 'write', user: 'resource', owner: OWNER } },
      schema: {
        tags: ['privacy'],
        summary: "Erase everything held about a user, from every table and cache, and revoke the user's tokens (repeatable)",
        operationId: 'erasePrivacyData',
        querystring: PrivacyQuerySchema,
        response: { 200: Envelope(ErasureResultSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const userId = subject(request, request.query.user_id);
      return envelope(request, { user_id: userId, ...(await erasure.eraseUser(userId)) });
    },
  );
};

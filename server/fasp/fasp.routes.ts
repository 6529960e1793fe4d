/**
 * The FASP provider's API, mounted under the FASP path: `/provider_info`, capability
 * activation, the trends capability (`/trends/v0/*`), the account capabilities
 * (fasp-accounts.routes.ts), data sharing's announcements (fasp-data.routes.ts) and the debug
 * callback. Every route is signed both ways (fasp-auth.ts); a capability the calling server has
 * not enabled is a 404 (the debug callback excepted: it shares no data, and Mastodon offers
 * its "Callback" link without enabling it).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NotFoundError, ValidationError } from '../../src/errors.js';
import { installFaspAuth } from './fasp-auth.js';
import {
  ActivationParamsSchema,
  ProviderInfoSchema,
  TrendingContentSchema,
  TrendingHashtagsSchema,
  TrendingLinksSchema,
  TrendsQuerySchema,
} from './fasp.schema.js';
import type { FaspService } from './fasp.service.js';
import type { FaspSettings } from './fasp.settings.js';
import type { FaspTrendsService } from './fasp-trends.service.js';
import type { FaspAccountsService } from './fasp-accounts.service.js';
import { faspAccountRoutes } from './fasp-accounts.routes.js';
import type { FaspDebugService } from './fasp-debug.service.js';
import type { BackgroundTasks } from './background-tasks.js';
import type { FaspDataSharingService } from './fasp-data-sharing.service.js';
import { faspDataRoutes } from './fasp-data.routes.js';

/** The capabilities this provider offers, with their versions (the activation path carries the major one). */
export const FASP_CAPABILITIES = [
  { id: 'trends', version: '0.1' },
  { id: 'follow_recommendation', version: '0.1' },
  { id: 'account_search', version: '0.1' },
  { id: 'data_sharing', version: '0.1' },
  { id: 'callback', version: '0.1' },
] as const;

/** `"<id>/<major version>"` for an activation path's id and version (`0` or `0.1`), undefined when not offered. */
export function capabilityKey(id: string, version: string): string | undefined {
  const capability = FASP_CAPABILITIES.find((c) => c.id === id && (c.version === version || c.version.split('.')[0] === version));
  return capability === undefined ? undefined : `${capability.id}/${capability.version.split('.')[0]}`;
}

export interface FaspRoutesOptions {
  service: FaspService;
  trends: FaspTrendsService;
  accounts: FaspAccountsService;
  debug: FaspDebugService;
  dataSharing: FaspDataSharingService;
  tasks: BackgroundTasks;
  settings: FaspSettings;
  now: () => number;
}

const TAGS = ['fasp'];

export const faspRoutes: FastifyPluginAsyncTypebox<FaspRoutesOptions> = async (
  app,
  { service, trends, accounts, debug, dataSharing, tasks, settings, now },
) => {
  installFaspAuth(app, service, now);
  // Signed requests, not bearer tokens: the FASP hooks answer 401 themselves.
  const config = { access: 'public' as const };

  app.get(
    '/provider_info',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'FASP provider information',
        operationId: 'getFaspProviderInfo',
        response: { 200: ProviderInfoSchema },
      },
    },
    async () => ({
      name: settings.name,
      privacyPolicy: [...settings.privacyPolicy],
      capabilities: FASP_CAPABILITIES.map((c) => ({ ...c })),
      ...(settings.signInUrl !== undefined ? { signInUrl: settings.signInUrl } : {}),
      ...(settings.contactEmail !== undefined ? { contactEmail: settings.contactEmail } : {}),
    }),
  );

  for (const [method, enabled] of [
    ['POST', true],
    ['DELETE', false],
  ] as const) {
    app.route({
      method,
      url: '/capabilities/:id/:version/activation',
      config,
      schema: {
        tags: TAGS,
        summary: enabled ? 'Enable a FASP capability for the calling server' : 'Disable a FASP capability for the calling server',
        operationId: enabled ? 'activateFaspCapability' : 'deactivateFaspCapability',
        params: ActivationParamsSchema,
      },
      handler: async (request, reply) => {
        const key = capabilityKey(request.params.id, request.params.version);
        if (key === undefined) throw new NotFoundError(`no capability ${request.params.id} version ${request.params.version}`);
        const serverId = request.faspServerId ?? '';
        const changed = await service.setCapability(serverId, key, enabled);
        if (changed && key === 'data_sharing/0') dataSharing.capabilityChanged(serverId, enabled);
        return reply.code(204).send();
      },
    });
  }

  /** 404 unless the calling server enabled the capability (`"<id>/<major>"`). */
  const requireCapability = async (serverId: string | undefined, capability: string): Promise<void> => {
    const server = await service.find(serverId ?? '');
    if (server === undefined || !server.capabilities.includes(capability))
      throw new NotFoundError(`the ${capability.split('/')[0]} capability is not enabled for this server`);
  };
  const requireTrends = (serverId: string | undefined): Promise<void> => requireCapability(serverId, 'trends/0');

  await app.register(faspAccountRoutes, { accounts, requireCapability, now });
  await app.register(faspDataRoutes, { dataSharing, requireCapability, now });

  app.post(
    '/debug/v0/callback/logs',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'Log a call and call the server back (FASP debug callback v0.1)',
        operationId: 'faspDebugCallback',
      },
    },
    async (request, reply) => {
      const body = request.body;
      if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body)))
        throw new ValidationError('the body must be empty or one JSON object');
      const serverId = request.faspServerId ?? '';
      const text = body === undefined ? '' : JSON.stringify(body);
      const id = await debug.record(serverId, request.ip, text, now());
      request.log.info({ faspServer: serverId, ip: request.ip, body: text }, 'FASP debug callback requested');
      tasks.run(`debug:${serverId}`, 'FASP debug callback', async () => {
        const status = await debug.callBack(serverId, id, body);
        request.log.info({ faspServer: serverId, status }, 'FASP debug callback answered');
      });
      return reply.code(201).send();
    },
  );

  app.get(
    '/trends/v0/content',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'Trending content (FASP trends v0.1)',
        operationId: 'getFaspTrendingContent',
        querystring: TrendsQuerySchema,
        response: { 200: TrendingContentSchema },
      },
    },
    async (request) => {
      await requireTrends(request.faspServerId);
      return { content: await trends.content(request.query, now()) };
    },
  );

  app.get(
    '/trends/v0/hashtags',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'Trending hashtags (FASP trends v0.1)',
        operationId: 'getFaspTrendingHashtags',
        querystring: TrendsQuerySchema,
        response: { 200: TrendingHashtagsSchema },
      },
    },
    async (request) => {
      await requireTrends(request.faspServerId);
      return { hashtags: await trends.hashtags(request.query, now()) };
    },
  );

  app.get(
    '/trends/v0/links',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'Trending links (FASP trends v0.1)',
        operationId: 'getFaspTrendingLinks',
        querystring: TrendsQuerySchema,
        response: { 200: TrendingLinksSchema },
      },
    },
    async (request) => {
      await requireTrends(request.faspServerId);
      return { links: await trends.links(request.query, now()) };
    },
  );
};

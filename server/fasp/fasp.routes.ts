/**
 * The FASP provider's API, mounted under the FASP path: `/provider_info`, capability
 * activation, and the trends capability's `/trends/v0/content`. Every route is signed both
 * ways (fasp-auth.ts); a capability the calling server has not enabled is a 404.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NotFoundError } from '../../src/errors.js';
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

/** The capabilities this provider offers, with their versions (the activation path carries the major one). */
export const FASP_CAPABILITIES = [{ id: 'trends', version: '0.1' }] as const;

/** `"<id>/<major version>"` for an activation path's id and version (`0` or `0.1`), undefined when not offered. */
export function capabilityKey(id: string, version: string): string | undefined {
  const capability = FASP_CAPABILITIES.find((c) => c.id === id && (c.version === version || c.version.split('.')[0] === version));
  return capability === undefined ? undefined : `${capability.id}/${capability.version.split('.')[0]}`;
}

export interface FaspRoutesOptions {
  service: FaspService;
  trends: FaspTrendsService;
  settings: FaspSettings;
  now: () => number;
}

const TAGS = ['fasp'];

export const faspRoutes: FastifyPluginAsyncTypebox<FaspRoutesOptions> = async (app, { service, trends, settings, now }) => {
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
        await service.setCapability(request.faspServerId ?? '', key, enabled);
        return reply.code(204).send();
      },
    });
  }

  /** 404 unless the calling server enabled the trends capability. */
  const requireTrends = async (serverId: string | undefined): Promise<void> => {
    const server = await service.find(serverId ?? '');
    if (server === undefined || !server.capabilities.includes('trends/0'))
      throw new NotFoundError('the trends capability is not enabled for this server');
  };

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

/**
 * The account capabilities' routes (inside the signed FASP plugin): follow recommendations
 * and account search, each 404 unless the calling server enabled it, 422 without its one
 * required parameter (as the specifications say).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../src/errors.js';
import { publicBaseUrl } from '../platform/http/public-url.js';
import type { FaspAccountsService } from './fasp-accounts.service.js';
import { AccountSearchQuerySchema, ActorUrisSchema, FollowRecommendationQuerySchema } from './fasp.schema.js';

export interface FaspAccountRoutesOptions {
  accounts: FaspAccountsService;
  /** 404 unless the calling server enabled the capability (`"<id>/<major>"`). */
  requireCapability: (serverId: string | undefined, capability: string) => Promise<void>;
  now: () => number;
}

/** 422 `Unprocessable Content`: a parameter the specification requires is missing. */
function missing(field: string): AppError {
  return new AppError(422, 'Unprocessable Content', `${field} is required`, field);
}

const TAGS = ['fasp'];

export const faspAccountRoutes: FastifyPluginAsyncTypebox<FaspAccountRoutesOptions> = async (app, { accounts, requireCapability, now }) => {
  const config = { access: 'public' as const };

  app.get(
    '/follow_recommendation/v0/accounts',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'Accounts to follow for an account (FASP follow_recommendation v0.1)',
        operationId: 'getFaspFollowRecommendations',
        querystring: FollowRecommendationQuerySchema,
        response: { 200: ActorUrisSchema },
      },
    },
    async (request) => {
      await requireCapability(request.faspServerId, 'follow_recommendation/0');
      const { accountUri, language } = request.query;
      if (accountUri === undefined || accountUri === '') throw missing('accountUri');
      return accounts.followRecommendations({ accountUri, language }, now());
    },
  );

  app.get(
    '/account_search/v0/search',
    {
      config,
      schema: {
        tags: TAGS,
        summary: 'Accounts matching a term (FASP account_search v0.1)',
        operationId: 'searchFaspAccounts',
        querystring: AccountSearchQuerySchema,
        response: { 200: ActorUrisSchema },
      },
    },
    async (request, reply) => {
      await requireCapability(request.faspServerId, 'account_search/0');
      const { term, limit, offset, language } = request.query;
      if (term === undefined || term.trim() === '') throw missing('term');
      const page = await accounts.search({ term, limit, offset, language });
      if (page.more) {
        const next = new URLSearchParams({ term, limit: String(limit), offset: String(offset + limit) });
        if (language !== undefined) next.set('language', language);
        const path = request.url.split('?')[0]!;
        void reply.header('link', `<${publicBaseUrl(request)}${path}?${next.toString()}>; rel="next"`);
      }
      return page.uris;
    },
  );
};

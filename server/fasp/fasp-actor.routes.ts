/**
 * The actor data_sharing's fetches are signed as (unsigned routes, outside the FASP plugin):
 * `{FASP path}/actor` (an Application with its public key), an outbox that is always empty, an
 * inbox that accepts and discards, and `/.well-known/webfinger` for `acct:fasp@{host}`.
 */
import type { FastifyPluginAsync } from 'fastify';
import { NotFoundError } from '../../src/errors.js';
import { publicBaseUrl } from '../platform/http/public-url.js';
import { ACTOR_USERNAME, type FaspActor } from './fasp-actor.js';

export interface FaspActorRoutesOptions {
  actor: FaspActor;
  /** The FASP path (`/fasp`). */
  path: string;
}

const ACTIVITY_JSON = 'application/activity+json; charset=utf-8';

export const faspActorRoutes: FastifyPluginAsync<FaspActorRoutesOptions> = async (app, { actor, path }) => {
  const config = { access: 'public' as const };
  app.addContentTypeParser(
    ['application/activity+json', 'application/ld+json'],
    { parseAs: 'buffer', bodyLimit: 1_000_000 },
    (_r, _b, done) => done(null, undefined),
  );
  const hide = { hide: true, tags: ['fasp'] };

  app.get(
    `${path}/actor`,
    { config, schema: { ...hide, summary: 'The FASP actor', operationId: 'getFaspActor' } },
    async (request, reply) => {
      const document = await actor.document(`${publicBaseUrl(request)}${path}`);
      return reply.type(ACTIVITY_JSON).send(JSON.stringify(document));
    },
  );

  app.get(
    `${path}/actor/outbox`,
    { config, schema: { ...hide, summary: 'The FASP actor outbox', operationId: 'getFaspOutbox' } },
    async (request, reply) => {
      const id = `${publicBaseUrl(request)}${path}/actor/outbox`;
      const outbox = {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id,
        type: 'OrderedCollection',
        totalItems: 0,
        orderedItems: [],
      };
      return reply.type(ACTIVITY_JSON).send(JSON.stringify(outbox));
    },
  );

  // Activities posted to the inbox are of no use to this provider: accepted and dropped unread.
  app.post(
    `${path}/actor/inbox`,
    { config, schema: { ...hide, summary: 'The FASP actor inbox', operationId: 'postFaspInbox' } },
    async (_request, reply) => reply.code(202).send(),
  );

  app.get(
    '/.well-known/webfinger',
    { config, schema: { ...hide, summary: 'WebFinger for the FASP actor', operationId: 'faspWebfinger' } },
    async (request, reply) => {
      const base = publicBaseUrl(request);
      const host = new URL(base).host;
      const resource = (request.query as Record<string, unknown>).resource;
      if (resource !== `acct:${ACTOR_USERNAME}@${host}` && resource !== `${base}${path}/actor`)
        throw new NotFoundError(`no such resource here: ${String(resource)}`);
      const self = `${base}${path}/actor`;
      return reply.type('application/jrd+json; charset=utf-8').send(
        JSON.stringify({
          subject: `acct:${ACTOR_USERNAME}@${host}`,
          aliases: [self],
          links: [{ rel: 'self', type: 'application/activity+json', href: self }],
        }),
      );
    },
  );
};

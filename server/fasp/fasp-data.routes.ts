/**
 * data_sharing's route on the provider (inside the signed FASP plugin): a server's
 * announcements, answered 204 at once, each URI fetched from its origin in the background
 * (fasp-data-sharing.service.ts). 404 unless the calling server enabled data_sharing.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { publicBaseUrl } from '../platform/http/public-url.js';
import type { FaspDataSharingService } from './fasp-data-sharing.service.js';
import { AnnouncementSchema } from './fasp.schema.js';

export interface FaspDataRoutesOptions {
  dataSharing: FaspDataSharingService;
  requireCapability: (serverId: string | undefined, capability: string) => Promise<void>;
  now: () => number;
}

export const faspDataRoutes: FastifyPluginAsyncTypebox<FaspDataRoutesOptions> = async (app, { dataSharing, requireCapability }) => {
  app.post(
    '/data_sharing/v0/announcements',
    {
      config: { access: 'public' as const },
      schema: {
        tags: ['fasp'],
        summary: 'Objects a server announces (FASP data_sharing v0.1)',
        operationId: 'faspAnnouncements',
        body: AnnouncementSchema,
      },
    },
    async (request, reply) => {
      await requireCapability(request.faspServerId, 'data_sharing/0');
      const path = request.url.split('?')[0]!.replace(/\/data_sharing\/v0\/announcements$/, '');
      dataSharing.seenBase(`${publicBaseUrl(request)}${path}`);
      dataSharing.announced(request.faspServerId ?? '', request.body);
      return reply.code(204).send();
    },
  );
};

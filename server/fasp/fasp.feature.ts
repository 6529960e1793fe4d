/** Registers the FASP provider (issue 29) when it is on: its routes under the FASP path. */
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../platform/context.js';
import type { PostService } from '../posts/post.service.js';
import type { TrendingService } from '../posts/trending.service.js';
import { FaspTrendsService } from './fasp-trends.service.js';
import { FaspService } from './fasp.service.js';
import type { FaspSettings } from './fasp.settings.js';
import { faspRoutes } from './fasp.routes.js';

export interface FaspOptions {
  readonly settings: FaspSettings;
  /** The key that seals the stored private keys (fasp-keys.ts). */
  readonly faspKey: Buffer;
}

/** Mounts the FASP routes at `settings.path`. */
export async function registerFasp(
  app: FastifyInstance,
  context: Pick<PlatformContext, 'database'>,
  options: FaspOptions,
  deps: { posts: PostService; trending: TrendingService },
): Promise<FaspService> {
  const service = new FaspService(context.database.db, options.faspKey);
  const trends = new FaspTrendsService({
    snapshot: (nowMs) => deps.trending.current(nowMs),
    statuses: (ids) => deps.posts.statusesByIds(ids),
  });
  await app.register(faspRoutes, { prefix: options.settings.path, service, trends, settings: options.settings, now: () => Date.now() });
  return service;
}

/**
 * Registers the FASP provider (issue 29) when it is on: its signed routes under the FASP path,
 * the actor and WebFinger its data-sharing fetches are signed as, and the weekly revalidation
 * of what data sharing stored (checked every REVALIDATE_CHECK_MS).
 */
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../platform/context.js';
import type { PostService } from '../posts/post.service.js';
import type { TrendingService } from '../posts/trending.service.js';
import type { RankingState } from '../ranking-state/ranking-state.service.js';
import { forgetAuthorAffinities } from '../interactions/author-affinities.service.js';
import { BackgroundTasks } from './background-tasks.js';
import { FaspAccountsService } from './fasp-accounts.service.js';
import { FaspActor } from './fasp-actor.js';
import { faspActorRoutes } from './fasp-actor.routes.js';
import { FaspDataSharingService } from './fasp-data-sharing.service.js';
import { FaspDebugService } from './fasp-debug.service.js';
import { FaspTrendsService } from './fasp-trends.service.js';
import { FaspService } from './fasp.service.js';
import type { FaspSettings } from './fasp.settings.js';
import { faspRoutes } from './fasp.routes.js';
import { OriginFetcher } from './origin-fetcher.js';

export interface FaspOptions {
  readonly settings: FaspSettings;
  /** The key that seals the stored private keys (fasp-keys.ts). */
  readonly faspKey: Buffer;
  /** What outgoing requests go through (tests: the default fetch). */
  readonly fetchImpl?: typeof fetch;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The FASP provider, when on (tests wait for its background work through it). */
    faspFeature: FaspFeature | undefined;
  }
}

/** How often the stored objects due for their weekly revalidation are looked for. */
export const REVALIDATE_CHECK_MS = 3_600_000;

export interface FaspFeature {
  readonly service: FaspService;
  readonly dataSharing: FaspDataSharingService;
  readonly debug: FaspDebugService;
  readonly fetcher: OriginFetcher;
  /** Resolves when the background work started so far is done (tests). */
  settled(): Promise<void>;
}

/** Mounts the FASP routes at `settings.path`. */
export async function registerFasp(
  app: FastifyInstance,
  context: Pick<PlatformContext, 'database'>,
  options: FaspOptions,
  deps: { posts: PostService; trending: TrendingService; ranking: RankingState },
): Promise<FaspFeature> {
  const db = context.database.db;
  const fetchImpl = options.fetchImpl ?? fetch;
  const service = new FaspService(db, options.faspKey);
  const trends = new FaspTrendsService({
    snapshot: (nowMs) => deps.trending.current(nowMs),
    statuses: (ids) => deps.posts.statusesByIds(ids),
  });
  const tasks = new BackgroundTasks((error, what) => app.log.warn({ err: error }, `${what} failed`));
  const accounts = new FaspAccountsService(db, () => deps.ranking.coEngagement);
  const debug = new FaspDebugService(db, service, fetchImpl);
  const actor = new FaspActor(db, options.faspKey);
  const fetcher = new OriginFetcher(db, actor, fetchImpl);
  const publicUrl = app.publicUrl;
  const dataSharing = new FaspDataSharingService(db, service, tasks, fetcher, deps.posts, {
    faspBase: publicUrl === undefined ? undefined : `${publicUrl.replace(/\/+$/, '')}${options.settings.path}`,
    fetchImpl,
    authorRemoved: async (accountId) => deps.ranking.usersSignalsReplaced(await forgetAuthorAffinities(db, accountId)),
  });
  const path = options.settings.path;
  await app.register(faspRoutes, {
    prefix: path,
    service,
    trends,
    accounts,
    debug,
    dataSharing,
    tasks,
    settings: options.settings,
    now: () => Date.now(),
  });
  await app.register(faspActorRoutes, { actor, path });
  const timer = setInterval(
    () => tasks.run('revalidate', 'FASP weekly revalidation', async () => void (await dataSharing.revalidateDue())),
    REVALIDATE_CHECK_MS,
  );
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await tasks.settled();
  });
  const feature: FaspFeature = { service, dataSharing, debug, fetcher, settled: () => tasks.settled() };
  app.decorate('faspFeature', feature);
  return feature;
}

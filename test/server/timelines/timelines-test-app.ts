/**
 * An app with the blended timelines against a Mastodon test instance (insecure mode,
 * short timeouts). Until server/features.ts registers the timelines, the routes are
 * registered here on a stack of their own (ranking state, posts, interactions,
 * recommendations, preferences) over the app's database; once wired, the app's own are used.
 */
import type { FastifyInstance } from 'fastify';
import type { StatusInput } from '../../../src/schemas/post.schema.js';
import { buildApp } from '../../../server/app.js';
import { createToken } from '../../../server/platform/auth/token.service.js';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import { InteractionService } from '../../../server/interactions/interaction.service.js';
import { createServiceMetrics } from '../../../server/platform/metrics/service-metrics.js';
import { candidatePosts, PostService } from '../../../server/posts/post.service.js';
import { loadRankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { defaultRankingPolicy } from '../../../server/recommendations/default-ranking-policy.js';
import { FeedbackService } from '../../../server/recommendations/feedback.service.js';
import { RecommendationService } from '../../../server/recommendations/recommendation.service.js';
import type { SocialServices } from '../../../server/platform/social/social.service.js';
import type { SocialOptions } from '../../../server/platform/social/social-options.js';
import { registerTimelines } from '../../../server/timelines/timelines.feature.js';
import { testSocialServices, withSocial, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { openTestDatabase } from '../../helpers/test-database.js';

export interface TimelinesHarness {
  app: FastifyInstance;
  database: DatabaseHandle;
  social: SocialServices;
  /** The posts service the timelines store through (the app's own once wired: then undefined). */
  posts: PostService | undefined;
  feedback: FeedbackService | undefined;
  interactions: InteractionService | undefined;
  /**
   * Stores statuses as candidates where the timelines' recommendations see them (through the
   * service's own posts API, so under the ids given). With `shownBy`, that instance is taken to
   * have shown them under the same ids (its mappings are written): a reader there can be
   * injected them without a lookup.
   */
  seed(statuses: readonly Record<string, unknown>[], shownBy?: { host: string }): Promise<void>;
  close(): Promise<void>;
}

/**
 * `timelineRecommendations` defaults to `inline` here: most timeline tests look at the injected
 * statuses themselves; the client tests (timelines-clients, timelines-boosts) ask for the
 * default, `boost`.
 */
export async function timelinesHarness(options: Partial<SocialOptions> = {}): Promise<TimelinesHarness> {
  const social = testSocialServices({ timelineRecommendations: 'inline', ...options });
  const opened = await openTestDatabase();
  const { database } = opened;
  const app = await buildApp({ ...withSocial(social), database, rateLimit: null });
  let posts: PostService | undefined;
  let feedback: FeedbackService | undefined;
  let interactions: InteractionService | undefined;
  if (!app.hasRoute({ method: 'GET', url: '/api/v1/timelines/home' })) {
    const db = database.db;
    const ranking = await loadRankingState((limits) => candidatePosts(db, limits));
    posts = new PostService(db, ranking);
    interactions = new InteractionService(db, ranking, posts);
    const sources = { db, state: ranking, posts, interactions };
    const recommendations = new RecommendationService(sources, createServiceMetrics(), defaultRankingPolicy);
    feedback = new FeedbackService(sources, defaultRankingPolicy);
    await registerTimelines(app, { social }, { posts, recommendations, preferences: feedback, interactions });
  }
  await app.ready();
  return {
    app,
    database,
    social,
    posts,
    feedback,
    interactions,
    async seed(statuses, shownBy) {
      if (posts) {
        await posts.ingest(statuses as unknown as StatusInput[]);
        if (shownBy) await mapAsShown(database, shownBy.host, statuses);
        return;
      }
      const admin = await createToken(database.db, { scopes: ['admin'], tier: 'authenticated', userId: null, ttlSeconds: 600 });
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/posts/batch',
        headers: { authorization: `Bearer ${admin.token}` },
        payload: { statuses },
      });
      if (response.statusCode >= 300) throw new Error(`seeding failed: ${response.body}`);
      if (shownBy) await mapAsShown(database, shownBy.host, statuses);
    },
    async close() {
      await app.close();
      await social.close();
      await opened.close();
    },
  };
}

/** The service's id of a status an instance showed under `localId` (undefined when it never stored it). */
export async function serviceIdOf(database: DatabaseHandle, instance: string, localId: string): Promise<string | undefined> {
  const row = await database.db
    .selectFrom('post_instance_ids')
    .select('post_id')
    .where('instance', '=', instance)
    .where('local_id', '=', localId)
    .executeTakeFirst();
  return row?.post_id;
}

/** Writes `instance`'s mappings of seeded statuses and their accounts (their ids as the instance's own); rows not stored are skipped. */
export async function mapAsShown(database: DatabaseHandle, instance: string, statuses: readonly Record<string, unknown>[]): Promise<void> {
  const all = statuses.flatMap((status) => (status.reblog ? [status.reblog as Json, status] : [status]));
  for (const status of all) {
    const id = status.id as string;
    const accountId = (status.account as Json).id as string;
    const post = await database.db.selectFrom('posts').select('id').where('id', '=', id).executeTakeFirst();
    if (post === undefined) continue;
    await database.db
      .insertInto('post_instance_ids')
      .values({ instance, local_id: id, post_id: id })
      .onConflict((oc) => oc.columns(['instance', 'local_id']).doNothing())
      .execute();
    await database.db
      .insertInto('account_instance_ids')
      .values({ instance, local_id: accountId, account_id: accountId })
      .onConflict((oc) => oc.columns(['instance', 'local_id']).doNothing())
      .execute();
  }
}

/** Statuses of the test instance's accounts alice does not follow (ivan, newsbot): never on her home page. */
export function unfollowedStatuses(instance: MastodonTestInstance): Json[] {
  return instance.publicTimeline().filter((status) => ['ivan', 'newsbot'].includes((status.account as Json).username as string));
}

/**
 * Copies of the first five of `own` by `authors` accounts the instance does not know
 * (`<prefix><a>`, ids starting with `idDigit`): more candidates to recommend.
 */
export function copiedStatuses(own: readonly Json[], authors: number, prefix: { id: string; name: string; idDigit: string }): Json[] {
  return Array.from({ length: authors }, (_, a) =>
    own.slice(0, 5).map((status, k) => ({
      ...status,
      id: `${prefix.idDigit}${a}0${k}${status.id as string}`.slice(0, 24),
      uri: `https://copies.example/users/${prefix.id}${a}/statuses/${k}`,
      url: null,
      account: {
        ...(status.account as Json),
        id: `${prefix.id}${a}`,
        username: `${prefix.name}${a}`,
        acct: `${prefix.name}${a}@copies.example`,
      },
    })),
  ).flat();
}

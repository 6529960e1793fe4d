/**
 * The feature list: each feature folder registers its routes (and agents) here,
 * one line each, so app.ts stays about cross-cutting concerns.
 */
import { pseudonymiseStoredIds } from './experiments/events/privacy-backfill.js';
import { registerPrivacy } from './privacy/privacy.feature.js';
import { tokenUserData } from './platform/auth/token-user-data.js';
import { oauthUserData } from './oauth/oauth-user-data.js';
import { settingsUserData } from './settings/settings-user-data.js';
import { findOwnAccountIds, userIdsOfAccounts } from './posts/user-accounts.repository.js';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { registerInteractions } from './interactions/interactions.feature.js';
import { interactionUserData } from './interactions/interaction-user-data.js';
import { newestInteractions } from './interactions/co-engagement.repository.js';
import { postEngagerGroups } from './interactions/engagers.service.js';
import { registerAnalytics } from './experiments/events/analytics.feature.js';
import { registerExperiments } from './experiments/experiments.feature.js';
import { experimentMeasurement } from './experiments/measurement.service.js';
import { registerFasp } from './fasp/fasp.feature.js';
import { candidatePosts, mayStoreStatus } from './posts/post.service.js';
import { accountCreatedAtByInstanceIds } from './posts/post-identity.repository.js';
import { registerOAuth } from './oauth/oauth.feature.js';
import { registerPosts } from './posts/posts.feature.js';
import { loadRankingState } from './ranking-state/ranking-state.service.js';
import { FeedbackService } from './recommendations/feedback.service.js';
import { registerRag } from './rag/rag.feature.js';
import { findPostTexts, listIndexablePostHeads } from './posts/indexable-posts.repository.js';
import { registerRecommendations } from './recommendations/recommendations.feature.js';
import { registerSettings } from './settings/settings.feature.js';
import { registerTimelines } from './timelines/timelines.feature.js';
import { registerProxy } from './proxy/proxy.feature.js';
import { interactionLogger } from './proxy/proxy-interactions.js';
import type { StatusInput } from '../src/schemas/post.schema.js';
import { DEFAULT_INTEGRATION_VALUES } from '../src/settings/settings.schema.js';

/** Registers every feature's routes and agents. */
export async function registerFeatures(app: FastifyInstance, context: AppContext): Promise<void> {
  // The one owner of the in-memory ranking state; features announce their writes to it.
  const db = context.database.db;
  const ranking = await loadRankingState(
    (limits) => candidatePosts(db, limits, context.sourceShares),
    context.caches,
    (limit) => newestInteractions(db, limit),
  );
  context.metrics.watchCaches(() => ranking.cacheSizes());
  // Other instances' invalidations reach this state, and its own reach them (server/platform/redis/ranking-fanout.ts).
  if (context.redis) await context.redis.attachRankingState(ranking);
  const { posts, trending } = await registerPosts(app, context, ranking, (sinceMs) =>
    postEngagerGroups(db, sinceMs, (pairs) => accountCreatedAtByInstanceIds(db, pairs)),
  );
  // Rows written by versions before pseudonymisation are converted once, before any route runs.
  await pseudonymiseStoredIds(db, context.privacy);
  const interactions = await registerInteractions(app, context, {
    ranking,
    posts,
    privacy: context.privacy,
    measurement: experimentMeasurement,
  });
  const experiments = await registerExperiments(app, context);
  // Another instance's experiment change reaches this runtime at once, and this one's reaches theirs.
  if (context.redis) await context.redis.attachExperiments(experiments.runtime);
  // On PostgreSQL, a change any process committed (the gate agent run from the command line) applies here at once.
  context.database.onExperimentsChange(() => experiments.runtime.applyRemoteInvalidation());
  const { rankingPolicy } = experiments;
  await registerAnalytics(app, context, { privacy: context.privacy });
  await registerRag(app, context, {
    posts: { heads: (limit) => listIndexablePostHeads(db, limit), texts: (ids) => findPostTexts(db, ids) },
  });
  const recommendations = await registerRecommendations(app, context, {
    ranking,
    posts,
    interactions,
    policy: rankingPolicy,
    measurement: experimentMeasurement,
  });
  const { oauth } = await registerOAuth(app, context, context.oauth);
  const preferences = new FeedbackService(
    { db, state: ranking, posts, interactions },
    rankingPolicy,
    context.privacy,
    experimentMeasurement,
  );
  await registerTimelines(app, context, { posts, recommendations, interactions, preferences, ranking });
  const settings = await registerSettings(app, context, {
    preferences,
    experiments: experiments.runtime,
    startup: { cors_origins: context.corsOrigins === '*' ? '*' : [...context.corsOrigins] },
    live: ['default_instance', 'allowed_instances', 'gate_thresholds'],
  });
  // Instance settings apply to the next request, gate thresholds to the next experiment created;
  // CORS origins at the next start.
  settings.integration.onChange((values) => {
    context.social.identityProvider.configureInstances(values.default_instance, values.allowed_instances);
    const changed = JSON.stringify(values.gate_thresholds) !== JSON.stringify(DEFAULT_INTEGRATION_VALUES.gate_thresholds);
    experiments.experiments.useGateDefaults(changed ? values.gate_thresholds : undefined);
  });
  await registerPrivacy(app, context, {
    ranking,
    tokenCaches: [context.social.identityProvider],
    accounts: { ownAccountIds: (userId) => findOwnAccountIds(db, userId), userIdsOf: (ids) => userIdsOfAccounts(db, ids) },
    // Each owner's part of a user's export and full erasure, in this order (live credentials counted before any row goes).
    userData: [tokenUserData, oauthUserData, settingsUserData, interactionUserData({ db, posts, ranking })],
  });
  // A user's changed level or erasure (here or fanned out from another instance) reaches every cache of them.
  context.privacy.onLevelChange((userId) => experiments.runtime.forgetUser(userId));
  ranking.onUserErased((userId) => experiments.runtime.forgetUser(userId));
  if (context.fasp) await registerFasp(app, context, context.fasp, { posts, trending, ranking });
  // Last: drop-in mode proxies only what no route above matched.
  if (context.proxy) {
    await registerProxy(app, context, {
      dropIn: true,
      // Mastodon's OAuth paths carry the service's own clients' calls to the service (masto.js posts to /oauth/token).
      ownOAuthClient: (clientId) => oauth.isOwnClient(clientId),
      onForwarded: interactionLogger({
        interactions,
        postIdFor: (instance, localId) => posts.postIdFor(instance, localId),
        storeStatus: async (instance, status) => (await posts.ingestFromInstance(instance, [status as unknown as StatusInput])).ids[0],
        mayStore: mayStoreStatus,
        privacy: context.privacy,
      }),
    });
  }
}

/**
 * Registers the privacy feature: `/api/v1/privacy` (level, export, erasure), the tracking of
 * requests in flight that erasure waits for, the RAG index's exclusion of authors at `none`,
 * and the `retention` agent. The policy itself (privacy-policy.service.ts) is made before the
 * app (start.ts: its key comes from the database path) and handed to every write path.
 */
import type { FastifyInstance } from 'fastify';
import type { AgentRunner } from '../platform/agents/agent-runner.js';
import { retentionAgent } from './retention.agent.js';
import type { DatabaseHandle } from '../platform/db/connection.js';
import type { ServiceMetrics } from '../platform/metrics/service-metrics.js';
import type { RagRuntime } from '../rag/rag.feature.js';
import type { RankingEvents } from '../ranking-state/ranking-state.events.js';
import { InFlightRequests, trackInFlightRequests } from './in-flight-requests.js';
import { followOutsideLevelChanges, PrivacyErasureService } from './privacy-erasure.service.js';
import type { PrivacyPolicyService } from './privacy-policy.service.js';
import { privacyRoutes } from './privacy.routes.js';
import { PrivacyService } from './privacy.service.js';
import type { UserAccounts, UserDataPart } from './user-data.types.js';
import { scrubDeletedData } from '../platform/db/maintenance.js';

export { createPrivacyPolicy, PrivacyPolicyService, type PrivacyPolicyOptions } from './privacy-policy.service.js';
export { readPrivacySettings, type PrivacySettings } from './privacy.settings.js';
export type { PrivacyPolicy } from './privacy-policy.types.js';

/** What the feature takes from the app's context. */
export interface PrivacyContext {
  database: DatabaseHandle;
  agents: AgentRunner;
  agentIntervalSeconds: number;
  metrics: ServiceMetrics;
  rag: RagRuntime;
  /** The deployment's policy (closed with the app). */
  privacy: PrivacyPolicyService;
  /** The service-token cache (emptied after an erasure deletes the user's tokens). */
  tokens: { forget(): void };
}

export interface PrivacyDeps {
  /** The ranking state: erasure announces `userErased` to it. */
  ranking: Pick<RankingEvents, 'userErased'> & { erasureApplied?(): Promise<void> };
  /** Other caches of verified tokens (the Mastodon token cache). */
  tokenCaches?: ReadonlyArray<{ forget(): void }>;
  /** Which stored accounts are a user's (the posts feature's). */
  accounts: UserAccounts;
  /** What other features hold of a user beyond the `user_id` tables: their parts of the export and of a full erasure. */
  userData: readonly UserDataPart[];
}

export interface PrivacyFeature {
  policy: PrivacyPolicyService;
  service: PrivacyService;
  erasure: PrivacyErasureService;
  inFlight: InFlightRequests;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The privacy feature (its policy, export and erasure services). */
    privacy: PrivacyFeature;
  }
}

/** Registers the routes, hooks and agent; call it on the root instance (the in-flight hook must see every route). */
export async function registerPrivacy(app: FastifyInstance, context: PrivacyContext, deps: PrivacyDeps): Promise<PrivacyFeature> {
  const db = context.database.db;
  const policy = context.privacy;
  const inFlight = new InFlightRequests();
  trackInFlightRequests(app, inFlight, '/api/v1/privacy');
  const erasure = new PrivacyErasureService({
    db,
    policy,
    inFlight,
    ranking: deps.ranking,
    tokenCaches: [context.tokens, ...(deps.tokenCaches ?? [])],
    rag: context.rag.index,
    accounts: deps.accounts,
    userData: deps.userData,
    // The rows are gone either way: a scrub that fails (a statement still open) is logged, and the next erasure redoes it.
    scrubDeleted: () =>
      scrubDeletedData(db).catch((error: unknown) => app.log.warn({ err: error }, 'erasure: scrubbing the database files failed')),
  });
  // Another instance's erasure or lowered level: this one deletes what its own requests wrote meanwhile.
  followOutsideLevelChanges(policy, erasure, (error, userId) =>
    app.log.error({ err: error, userId }, 'deleting what this instance stored while another erased the user failed'),
  );
  const service = new PrivacyService({ db, policy, erasure, userData: deps.userData });
  // Posts of authors at `none` are never indexed (read at every indexer pass), besides any the runtime already excluded.
  const excludedBefore = context.rag.excludedAuthors;
  context.rag.excludedAuthors = async (accountIds) => {
    const excluded = await authorsAtNone(deps.accounts, policy, accountIds);
    for (const id of await excludedBefore(accountIds)) excluded.add(id);
    return excluded;
  };
  context.metrics.watchCaches(() => [{ cache: 'privacy_levels', entries: policy.cachedUsers }]);
  context.agents.register(retentionAgent({ db, policy, intervalSeconds: context.agentIntervalSeconds * 60 }));
  app.addHook('onClose', async () => policy.close());
  await app.register(privacyRoutes, { privacy: service, erasure });
  const feature: PrivacyFeature = { policy, service, erasure, inFlight };
  app.decorate('privacy', feature);
  return feature;
}

/** Of these stored accounts, those whose user (`<account id>@<host>`, or the id itself) is at `none`. */
async function authorsAtNone(accounts: UserAccounts, policy: PrivacyPolicyService, accountIds: readonly string[]): Promise<Set<string>> {
  const excluded = new Set<string>();
  for (const [accountId, userId] of await accounts.userIdsOf(accountIds)) {
    if (policy.levelOf(userId) === 'none') excluded.add(accountId);
  }
  return excluded;
}

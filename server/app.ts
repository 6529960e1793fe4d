/**
 * Builds the fastify instance (never listens): cross-cutting plugins in the
 * order they must run (request context, security headers, errors, OpenAPI,
 * identity, rate limits, metrics), then the operations routes and the features.
 */
import { createPrivacyPolicy, type PrivacyPolicyService } from './privacy/privacy.feature.js';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RateLimitPolicy } from '../src/rate-limit/policy.js';
import { DEFAULT_SOURCE_SHARES, type SourceShares } from '../src/ranking/index.js';
import { AgentRunner } from './platform/agents/agent-runner.js';
import { agentRoutes } from './platform/agents/agents.routes.js';
import { databaseMaintenanceAgent } from './platform/agents/database-maintenance.agent.js';
import { serviceTokenProvider, type IdentityProvider } from './platform/auth/identity-providers.js';
import { ServiceTokenVerifier } from './platform/auth/service-token-verifier.js';
import type { DatabaseHandle } from './platform/db/connection.js';
import type { AppContext } from './context.js';
import { registerFeatures } from './features.js';
import type { FaspOptions } from './fasp/fasp.feature.js';
import type { OAuthDeps } from './oauth/oauth.feature.js';
import type { OAuthSettings } from './oauth/oauth.settings.js';
import { socialInstanceGateway } from './oauth/instance-client-gateway.js';
import { createSocialServices, type SocialOptions, type SocialServices } from './platform/social/social.service.js';
import { healthRoutes } from './platform/health/health.routes.js';
import { createRagRuntime, type RagRuntime } from './rag/rag.feature.js';
import { createServiceMetrics, type ServiceMetrics } from './platform/metrics/service-metrics.js';
import { DEFAULT_HTTP_LIMITS, type CacheLimits, type HttpLimits } from './config.js';
import { capConnectionsPerClient } from './platform/http/client-connection-cap.js';
import { authPlugin } from './platform/plugins/auth.js';
import { clientErrorHandler, expectationFailed, frameworkErrorHandler, requestSanityPlugin } from './platform/plugins/client-errors.js';
import { corsPluginFp } from './platform/plugins/cors.js';
import { jsonBodyPlugin } from './platform/plugins/json-body.js';
import { loadSheddingPlugin, type LoadSheddingOptions } from './platform/plugins/load-shedding.js';
import { errorHandlerPlugin } from './platform/plugins/error-handler.js';
import { metricsPluginFp } from './platform/plugins/metrics.js';
import { openapiPlugin } from './platform/plugins/openapi.js';
import { rateLimitPlugin } from './platform/plugins/rate-limit.js';
import { generateRequestId, requestContextPlugin } from './platform/plugins/request-context.js';
import { securityHeadersPlugin } from './platform/plugins/security-headers.js';
import { validatorCompiler } from './platform/plugins/validator.js';
import { MemoryRateLimitStore, type RateLimitStore } from './platform/rate-limit/rate-limit.store.js';
import type { RedisServices } from './platform/redis/redis-services.js';

export interface AppOptions {
  database: DatabaseHandle;
  /** `null` switches rate limiting off. */
  rateLimit: RateLimitPolicy | null;
  rateLimitStore?: RateLimitStore;
  /** Redis (RECSVC_REDIS_URL): shared rate limits and token cache, ranking invalidations, health. Its creator closes it. */
  redis?: RedisServices;
  logger?: FastifyServerOptions['logger'];
  trustProxy?: boolean | string;
  /** Serve HTTPS with this certificate and key (PEM), from --tls-cert/--tls-key; plain HTTP when absent. */
  https?: { cert: Buffer; key: Buffer };
  /** Base of absolute URLs (Link headers), from --public-url; see server/platform/http/public-url.ts. */
  publicUrl?: string;
  bodyLimit?: number;
  /** Timeouts and connection limits; defaults in server/config.ts. */
  http?: HttpLimits;
  /** 503 under event-loop or memory pressure; off when absent. */
  loadShedding?: LoadSheddingOptions | null;
  /** Browser origins allowed by CORS (default: any). */
  corsOrigins?: '*' | readonly string[];
  /** The RAG index, its settings and privacy hook (default: createRagRuntime(), no language model). */
  rag?: RagRuntime;
  /** Bounds of the ranking state's caches (defaults in server/ranking-state). */
  caches?: Partial<CacheLimits>;
  /** Source shares of the candidate pool and trending (default DEFAULT_SOURCE_SHARES: 25% per instance, 2% per author). */
  sourceShares?: SourceShares;
  agentIntervalSeconds?: number;
  /** Schedule the background agents (off in most tests, which run them by hand). */
  startAgents?: boolean;
  metrics?: ServiceMetrics;
  /** Identity providers tried after service tokens (default: Mastodon tokens through `social`). */
  identityProviders?: IdentityProvider[];
  /** The social-instance client and Mastodon-token provider (built from `socialOptions` when absent). */
  social?: SocialServices;
  socialOptions?: SocialOptions;
  /** How the service's OAuth server reaches instances, and its lifetimes (default: through `social`). */
  oauth?: OAuthDeps;
  /** Token lifetimes of the default OAuth wiring (when `oauth` is absent). */
  oauthSettings?: Partial<OAuthSettings>;
  /** The proxy and drop-in mode (`/api/v1/proxy/*`); `false` leaves them out (tests that register their own). */
  proxy?: boolean;
  /** Tracking levels and pseudonyms (default: levels read from the database, default level `limited`, an ephemeral key). */
  privacy?: PrivacyPolicyService;
  /** The FASP provider (server/fasp), when on (`serve --fasp`). */
  fasp?: FaspOptions;
  now?: () => number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The background agents (run one by hand with `runNow`). */
    agentRunner: AgentRunner;
    /** The configured public base URL (no trailing slash), when one is set. */
    publicUrl: string | undefined;
  }
}

/** The configured fastify app, ready for `inject` or `listen`. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const limits = options.http ?? DEFAULT_HTTP_LIMITS;
  const httpOptions = {
    headersTimeout: limits.headersTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    // How often Node looks for requests over their timeouts (its default, 30 s, lets them overrun).
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    // HTTP/1.1 without Host is refused by requestSanityPlugin, in the spec's shape (Node's own 400 has no body).
    requireHostHeader: false,
  };
  // An https.Server answers as the http.Server the app is typed with does; fastify hands it only
  // its `https` options, so the HTTP settings go there too. Added untyped (the type is http's).
  const tls: object = options.https ? { https: { ...httpOptions, cert: options.https.cert, key: options.https.key } } : {};
  const app = Fastify({
    ...tls,
    logger: options.logger ?? false,
    genReqId: generateRequestId,
    trustProxy: options.trustProxy ?? false,
    bodyLimit: options.bodyLimit ?? 1_048_576,
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: httpOptions,
    // Parser and router errors, and the 503 while closing, answer in the spec's shape (not fastify's).
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.maxConnections = limits.maxConnections;
  capConnectionsPerClient(app.server, limits.maxConnectionsPerClient);
  app.server.on('checkExpectation', expectationFailed);
  app.setValidatorCompiler(validatorCompiler);

  // Request bodies are JSON only (spec): anything else is 415, not a string body.
  app.removeContentTypeParser('text/plain');

  const metrics = options.metrics ?? createServiceMetrics();
  metrics.watchDatabaseConnections(options.database.dialect, () => options.database.connections().open);
  // Cluster agents run on one instance at a time, and about once per interval (agent_runs), among those sharing the database.
  const agents = new AgentRunner(metrics, app.log, { lock: options.database.withExclusiveLock, db: options.database.db });
  app.decorate('agentRunner', agents);
  app.decorate('publicUrl', options.publicUrl);
  // Service tokens are verified through a cache that notices revocations (see the verifier).
  const tokens = new ServiceTokenVerifier(options.database.db, options.database.externalWrites);
  const social = options.social ?? createSocialServices(options.socialOptions);
  if (options.social === undefined) app.addHook('onClose', () => social.close());
  // The social side seen by operators: outage and recovery lines, per-instance metrics (server/platform/social/instance-health.ts).
  social.client.health.useLog(app.log);
  social.client.health.observe((instance, outcome, seconds) => {
    const label = metrics.instanceLabel(instance);
    metrics.instanceRequests.inc({ instance: label, outcome });
    metrics.instanceLatency.observe({ instance: label }, seconds);
  });
  const redis = options.redis;
  if (redis) {
    social.identityProvider.useSharedCache(redis.tokenCache);
    metrics.watchFanout(() => redis.fanoutCounts());
  }
  const context: AppContext = {
    social,
    proxy: options.proxy ?? true,
    oauth: options.oauth ?? {
      gateway: socialInstanceGateway(social),
      settings: { ...options.oauthSettings, defaultInstance: social.options.defaultInstance },
    },
    database: options.database,
    tokens,
    metrics,
    agents,
    agentIntervalSeconds: options.agentIntervalSeconds ?? 60,
    caches: options.caches ?? {},
    sourceShares: options.sourceShares ?? DEFAULT_SOURCE_SHARES,
    corsOrigins: options.corsOrigins ?? '*',
    rag: options.rag ?? createRagRuntime(),
    redis,
    privacy: options.privacy ?? (await createPrivacyPolicy(options.database.db)),
    fasp: options.fasp,
  };
  // A level another instance changed (PostgreSQL's notification) applies here at once.
  options.database.onPrivacyRowChange((userId) => {
    context.privacy
      .outsideChange(userId)
      .catch((error: unknown) => app.log.error({ err: error, userId }, 'reading a changed privacy level failed'));
  });

  await app.register(requestContextPlugin);
  await app.register(securityHeadersPlugin);
  await app.register(requestSanityPlugin);
  await app.register(errorHandlerPlugin);
  // JSON bodies nested deeper than a bound are a 400 before anything recurses into them.
  await app.register(jsonBodyPlugin);
  await app.register(corsPluginFp, { origins: context.corsOrigins });
  await app.register(loadSheddingPlugin, { limits: options.loadShedding ?? null });
  await app.register(openapiPlugin);
  await app.register(authPlugin, {
    providers: [serviceTokenProvider(tokens), ...(options.identityProviders ?? [social.identityProvider])],
  });
  if (options.rateLimit) {
    await app.register(rateLimitPlugin, {
      policy: options.rateLimit,
      store: options.rateLimitStore ?? redis?.rateLimitStore ?? new MemoryRateLimitStore(),
      ...(options.now ? { now: options.now } : {}),
      dropIn: options.proxy ?? true,
      ...(options.fasp ? { faspPath: options.fasp.settings.path } : {}),
    });
  }
  await app.register(metricsPluginFp, { metrics });
  await app.register(healthRoutes, {
    ping: options.database.ping,
    rag: () => context.rag.index.health(),
    ...(redis ? { redis: () => redis.health() } : {}),
    instances: () => social.client.health.readings(),
  });
  await app.register(agentRoutes, { runner: agents });

  agents.register(databaseMaintenanceAgent(options.database.db, context.agentIntervalSeconds * 10));
  await registerFeatures(app, context);

  app.addHook('onReady', async () => {
    if (options.startAgents) agents.start();
  });
  app.addHook('onClose', async () => {
    await agents.stop();
  });
  return app;
}

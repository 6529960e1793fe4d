/**
 * `recsvc serve`: opens and migrates the database, optionally seeds demo data,
 * listens, and shuts down gracefully on SIGINT/SIGTERM (stop accepting, finish
 * in-flight requests, stop agents, close the database).
 */
import { loadFaspKey } from './fasp/fasp-keys.js';
import { createPrivacyPolicy, type PrivacyPolicyService } from './privacy/privacy.feature.js';
import { setFlagsFromString } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { createRagRuntime } from './rag/rag.feature.js';
import { storedIntegrationValues, type IntegrationValues } from './settings/settings.feature.js';
import type { ServerConfig } from './config.js';
import { openDatabase, type DatabaseHandle } from './platform/db/connection.js';
import { connectionDrainer, type ConnectionDrainer } from './platform/http/connection-drainer.js';
import { serializeRequest } from './platform/http/request-log.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { whileAnotherProcessWrites } from './platform/db/busy-wait.js';
import { createServiceMetrics } from './platform/metrics/service-metrics.js';
import { createRedisServices, type RedisServices } from './platform/redis/redis-services.js';

export interface RunningServer {
  app: FastifyInstance;
  database: DatabaseHandle;
  address: string;
  /** Graceful stop: idempotent. */
  stop(): Promise<void>;
}

export type DemoSeeder = (database: DatabaseHandle, log: (message: string) => void) => Promise<void>;

/** Starts the service; resolves once it listens. */
export async function startServer(config: ServerConfig, seedDemo?: DemoSeeder): Promise<RunningServer> {
  // V8 reads this at each full collection, when it sets the next limit: it applies from here on.
  if (config.heapGrowthPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
  const backgroundErrors: string[] = [];
  let log: ((message: string) => void) | undefined;
  const database = await openDatabase(config.dbPath, {
    backgroundCheckpoints: true,
    mmapBytes: config.sqliteMmapBytes,
    poolSize: config.databasePoolSize,
    onBackgroundError: (message) => (log ? log(message) : backgroundErrors.push(message)),
  });
  // Seed before building the app: features load their in-memory state (the candidate pool) at build.
  const seedLog: string[] = [];
  let integration: IntegrationValues;
  let privacy: PrivacyPolicyService;
  try {
    // Another process starting on the same SQLite file may be migrating or seeding it: wait for it.
    privacy = await whileAnotherProcessWrites(
      async () => {
        await migrateToLatest(database.db);
        const policy = await createPrivacyPolicy(database.db, { ...config.privacy, dbPath: config.dbPath });
        if (config.demo && seedDemo) await seedDemo(database, (message) => seedLog.push(message));
        return policy;
      },
      () => seedLog.push('another process holds the database (migrating or seeding it): waiting for its commit'),
    );
    // Integration settings an admin stored win over the configuration from the next start.
    integration = await storedIntegrationValues(database.db, {
      cors_origins: config.corsOrigins === '*' ? '*' : [...config.corsOrigins],
      default_instance: config.social.defaultInstance ?? null,
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  // Redis state changes go to the app's log once it exists (kept until then).
  const redisLines: Array<{ level: 'info' | 'warn'; message: string }> = [];
  let appLog: FastifyInstance['log'] | undefined;
  const redisLog = {
    info: (message: string) => (appLog ? appLog.info(message) : redisLines.push({ level: 'info', message })),
    warn: (message: string) => (appLog ? appLog.warn(message) : redisLines.push({ level: 'warn', message })),
  };
  let redis: RedisServices | undefined;
  let app: FastifyInstance;
  try {
    if (config.redis.url) redis = await createRedisServices({ url: config.redis.url, keyPrefix: config.redis.keyPrefix, log: redisLog });
    app = await buildApp({
      database,
      ...(redis ? { redis } : {}),
      privacy,
      ...(config.fasp
        ? { fasp: { settings: config.fasp, faspKey: loadFaspKey({ configured: config.faspKey, dbPath: config.dbPath }) } }
        : {}),
      rateLimit: config.rateLimit,
      logger: {
        level: config.logLevel,
        redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
        // Query values (user ids, OAuth codes) never reach the log: ./http/request-log.ts.
        serializers: { req: serializeRequest },
      },
      trustProxy: config.trustProxy,
      ...(config.tls ? { https: { cert: config.tls.cert, key: config.tls.key } } : {}),
      ...(config.publicUrl !== undefined ? { publicUrl: config.publicUrl } : {}),
      bodyLimit: config.bodyLimit,
      http: config.http,
      loadShedding: config.loadShedding,
      corsOrigins: integration.cors_origins,
      caches: config.caches,
      sourceShares: config.sourceShares,
      socialOptions: { ...config.social, defaultInstance: integration.default_instance ?? undefined },
      oauthSettings: config.oauth,
      rag: createRagRuntime(config.rag),
      agentIntervalSeconds: config.agentIntervalSeconds,
      startAgents: true,
      // A served process also reports Node's own metrics (memory, CPU, event-loop lag, GC).
      metrics: createServiceMetrics({ defaultMetrics: true }),
    });
  } catch (error) {
    await redis?.close();
    await database.close();
    throw error;
  }
  appLog = app.log;
  for (const line of redisLines.splice(0)) app.log[line.level](line.message);
  if (redis)
    app.log.info(
      `Redis shares rate limits, the social-token cache and ranking invalidations${config.redis.cluster ? ' (cluster mode)' : ''}`,
    );
  for (const message of seedLog) app.log.info(message);
  log = (message) => app.log.warn(message);
  for (const message of backgroundErrors.splice(0)) log(message);
  if (config.rateLimit === null) app.log.warn('rate limiting is OFF (--rate-limit off / RECSVC_RATE_LIMIT=off)');
  let address: string;
  const drainer = connectionDrainer(app.server);
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // Port taken, address not available, no permission: stop everything so the process can exit.
    await app.close();
    await redis?.close();
    await database.close();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await closeGracefully(app, drainer);
      await redis?.close();
      await database.close();
    })();
    return stopping;
  };
  return { app, database, address, stop };
}

/** How long in-flight requests may take to finish once shutdown begins. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Stops accepting, answers every request that arrived (in-flight ones finish, later ones get
 * the 503 of a closing server, each with `Connection: close`), closes keep-alive connections
 * once nothing is on its way in them (./http/connection-drainer.ts), then closes; whatever is
 * left after the grace period is cut.
 */
async function closeGracefully(app: FastifyInstance, drainer: ConnectionDrainer): Promise<void> {
  drainer.start();
  await drainer.acceptWaiting();
  const closing = app.close();
  const deadline = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  try {
    await closing;
  } finally {
    drainer.stop();
    clearTimeout(deadline);
  }
}

/** Stops the server on SIGINT/SIGTERM, then exits. */
export function stopOnSignals(server: RunningServer): void {
  const onSignal = (signal: NodeJS.Signals): void => {
    server.app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}

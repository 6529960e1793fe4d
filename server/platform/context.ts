/**
 * What the platform floor gives the features when the app is built (server/app.ts makes it).
 * A feature names the slice it uses, `Pick<PlatformContext, 'database' | 'agents'>` say, and
 * so depends on the platform alone, never on the composition root.
 */
import type { AgentRunner } from './agents/agent-runner.js';
import type { ServiceTokenVerifier } from './auth/service-token-verifier.js';
import type { DatabaseHandle } from './db/connection.js';
import type { ServiceMetrics } from './metrics/service-metrics.js';
import type { RedisServices } from './redis/redis-services.js';
import type { SocialServices } from './social/social.service.js';

export interface PlatformContext {
  database: DatabaseHandle;
  /** Service-token verification; whoever writes tokens in-process calls `tokens.forget()`. */
  tokens: ServiceTokenVerifier;
  metrics: ServiceMetrics;
  agents: AgentRunner;
  agentIntervalSeconds: number;
  /** Social instances: the safe client and Mastodon-token verification. */
  social: SocialServices;
  /** Redis, when configured: the ranking state's invalidations go through it. */
  redis: RedisServices | undefined;
}

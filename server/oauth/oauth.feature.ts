/** Registers the service's own OAuth 2.0 authorization server; returns its service. */
import type { FastifyInstance } from 'fastify';
import type { Agent } from '../platform/agents/agent-runner.js';
import type { DatabaseHandle } from '../platform/db/connection.js';
import type { InstanceGateway } from './instance-gateway.js';
import type { OAuthDb } from './oauth.repository.js';
import { oauthRoutes } from './oauth.routes.js';
import { OAuthService, type TokenCache } from './oauth.service.js';
import { DEFAULT_OAUTH_SETTINGS, type OAuthSettings } from './oauth.settings.js';

export interface OAuthDeps {
  /** How the flow reaches Mastodon instances (registration, login, verify_credentials). */
  gateway: InstanceGateway;
  /** Lifetimes and the default instance (readOAuthSettings); unset ones take the defaults. */
  settings?: Partial<OAuthSettings>;
  /** The clock of codes, logins and token lifetimes (tests move it). */
  now?: () => number;
}

/** The OAuth routes under /api/v1/oauth and /.well-known/oauth-authorization-server. */
export async function registerOAuth(
  app: FastifyInstance,
  /**
   * The app's context (AppContext): `tokens` is the service-token verifier, told after
   * revocations; `agents` runs the purge of expired logins, codes and token families.
   */
  context: { database: DatabaseHandle; tokens: TokenCache; agents?: { register(agent: Agent): void }; agentIntervalSeconds?: number },
  deps: OAuthDeps,
): Promise<{ oauth: OAuthService }> {
  const settings: OAuthSettings = { ...DEFAULT_OAUTH_SETTINGS, ...deps.settings };
  const db: OAuthDb = context.database.db;
  const oauth = new OAuthService(db, context.tokens, deps.gateway, settings, deps.now);
  await app.register(oauthRoutes, { oauth });
  context.agents?.register(oauthMaintenanceAgent(oauth, (context.agentIntervalSeconds ?? 60) * 10));
  return { oauth };
}

/** Deletes what can no longer be used: logins, codes and token families expired more than a day ago. */
export function oauthMaintenanceAgent(oauth: OAuthService, intervalSeconds: number): Agent {
  return {
    name: 'oauth_maintenance',
    description: 'deletes OAuth logins, codes and token families expired more than a day ago',
    intervalSeconds,
    // Deletes shared rows.
    scope: 'cluster',
    async run() {
      const purged = await oauth.purge();
      return { summary: `purged ${purged} expired OAuth records`, details: { purged } };
    },
  };
}

/**
 * A real app on a real, migrated database for `app.inject` tests, with helpers to mint
 * tokens: SQLite (in memory by default), or a PostgreSQL schema when the run's backend is
 * PostgreSQL (test/helpers/test-database.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Scope } from '../../src/auth/identity.js';
import type { RateLimitPolicy } from '../../src/rate-limit/policy.js';
import { buildApp, type AppOptions } from '../../server/app.js';
import { createToken } from '../../server/platform/auth/token.service.js';
import type { DatabaseHandle } from '../../server/platform/db/connection.js';
import { createPrivacyPolicy, type PrivacyPolicyService } from '../../server/privacy/privacy.feature.js';
import { openTestDatabase, type TestDatabase } from './test-database.js';

export interface TestApp {
  app: FastifyInstance;
  database: DatabaseHandle;
  /** Mints a token; `userId` binds it to a user. */
  token(scopes: Scope[], options?: { userId?: string; tier?: 'authenticated' | 'premium'; ttlSeconds?: number | null }): Promise<string>;
  /** `{ authorization: 'Bearer …' }` for an admin token (minted once). */
  adminHeaders(): Promise<Record<string, string>>;
  /** Headers for a read/write token bound to `userId`. */
  userHeaders(userId: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export interface TestAppOptions extends Partial<Omit<AppOptions, 'database'>> {
  /** SQLite path (on PostgreSQL: a schema named after it); defaults to a private in-memory database (a fresh schema). */
  dbPath?: string;
  rateLimit?: RateLimitPolicy | null;
  /** Registers extra (test-only) routes before the app is readied. */
  configure?: (app: FastifyInstance) => Promise<void> | void;
}

/** Builds a migrated app; rate limits are off unless a policy is given. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const opened = await openTestDatabase(options.dbPath);
  const { database } = opened;
  const { dbPath: _dbPath, configure, ...appOptions } = options;
  const privacy = options.privacy ?? (await plainPrivacy(opened));
  const app = await buildApp({ ...appOptions, privacy, database, rateLimit: options.rateLimit ?? null });
  await configure?.(app);
  await app.ready();
  let admin: string | undefined;
  const userTokens = new Map<string, string>();
  const token: TestApp['token'] = async (scopes, tokenOptions = {}) =>
    (
      await createToken(database.db, {
        scopes,
        tier: tokenOptions.tier ?? 'authenticated',
        userId: tokenOptions.userId ?? null,
        ttlSeconds: tokenOptions.ttlSeconds === undefined ? 3600 : tokenOptions.ttlSeconds,
      })
    ).token;
  return {
    app,
    database,
    token,
    async adminHeaders() {
      admin ??= await token(['read', 'write', 'admin']);
      return { authorization: `Bearer ${admin}` };
    },
    async userHeaders(userId) {
      let value = userTokens.get(userId);
      if (!value) {
        value = await token(['read', 'write'], { userId });
        userTokens.set(userId, value);
      }
      return { authorization: `Bearer ${value}` };
    },
    async close() {
      await app.close();
      await opened.close();
    },
  };
}

/**
 * The policy of tests about something other than privacy: every write path stores everything
 * (level full) and analytics rows keep the user id as given, so they can be read back by it.
 * Privacy tests (test/server/privacy*) pass their own policy with real pseudonyms.
 */
export async function plainPrivacy(opened: TestDatabase): Promise<PrivacyPolicyService> {
  const policy = await createPrivacyPolicy(opened.database.db, { defaultLevel: 'full', ...opened.privacy });
  policy.pseudonym = (userId: string) => userId;
  return policy;
}

/** Header makers of a harness: one token per user and scopes (and one admin token), minted on first use. */
export interface HeaderMinter {
  userHeaders(userId: string, scopes?: Array<'read' | 'write'>): Promise<Record<string, string>>;
  adminHeaders(): Promise<Record<string, string>>;
}

export function headerMinter(database: DatabaseHandle): HeaderMinter {
  const tokens = new Map<string, string>();
  const mint = async (key: string, scopes: Scope[], userId: string | null): Promise<Record<string, string>> => {
    let token = tokens.get(key);
    if (token === undefined) {
      token = (await createToken(database.db, { scopes, tier: 'authenticated', userId, ttlSeconds: 3600 })).token;
      tokens.set(key, token);
    }
    return { authorization: `Bearer ${token}` };
  };
  return {
    userHeaders: (userId, scopes = ['read', 'write']) => mint(`${userId}:${scopes.join(',')}`, scopes, userId),
    adminHeaders: () => mint(':admin', ['read', 'write', 'admin'], null),
  };
}

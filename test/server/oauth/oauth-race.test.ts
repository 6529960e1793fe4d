/**
 * Races decided by the database, not by timing: ten redemptions of one code (or ten uses of
 * one refresh token) are held at a barrier right after they have read the row, so every one
 * of them has seen it unspent before any tries to spend it. The one UPDATE ... WHERE
 * used_at_ms IS NULL lets exactly one through; the others are reuses, which revoke.
 * (Over HTTP, test/server/oauth/oauth-flow.test.ts runs the same race end to end.)
 */
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import * as oauthMigration from '../../../server/platform/db/migrations/0016-oauth.js';
import { OAuthError } from '../../../server/oauth/oauth-errors.js';
import type { OAuthDb } from '../../../server/oauth/oauth.repository.js';
import { OAuthService, type OAuthClient, type TokenResponse } from '../../../server/oauth/oauth.service.js';
import { DEFAULT_OAUTH_SETTINGS } from '../../../server/oauth/oauth.settings.js';
import { FakeInstances, pkcePair } from './oauth-test-app.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

const RACERS = 10;

/** Resolves every waiter once `size` have arrived (the test times out if fewer ever do). */
function barrier(size: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return async () => {
    arrived += 1;
    if (arrived === size) open();
    await opened;
  };
}

/** Query builders whose execute* wait at `wait` after the query ran (the connection is free again by then). */
function holdAfterExecute<T extends object>(builder: T, wait: () => Promise<void>): T {
  return new Proxy(builder, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof property === 'string' && property.startsWith('execute')) {
        return async (...args: unknown[]) => {
          const result = await method.apply(target, args);
          await wait();
          return result;
        };
      }
      return (...args: unknown[]) => {
        const result = method.apply(target, args);
        return result !== null && typeof result === 'object' ? holdAfterExecute(result, wait) : result;
      };
    },
  });
}

/** The db, with reads of `table` (outside transactions) held at the barrier while `gate` is set. */
function gatedDb(db: OAuthDb, table: string, gate: { wait?: () => Promise<void> }): OAuthDb {
  return new Proxy(db, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'selectFrom') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      return (from: string) => {
        const builder = (target.selectFrom as (from: string) => object)(from);
        return gate.wait && from.split(' ')[0] === table ? holdAfterExecute(builder, gate.wait) : builder;
      };
    },
  });
}

let database: DatabaseHandle;
let testDatabase: TestDatabase;
let instances: FakeInstances;
let client: OAuthClient;
let forgotten: number;

async function service(table: string, gate: { wait?: () => Promise<void> }): Promise<OAuthService> {
  const db = gatedDb(database.db, table, gate);
  return new OAuthService(db, { forget: () => void (forgotten += 1) }, instances, DEFAULT_OAUTH_SETTINGS);
}

async function codeFor(oauth: OAuthService, challenge: string): Promise<string> {
  const toInstance = new URL(
    await oauth.startLogin(
      client,
      'https://client.example/cb',
      { responseType: 'code', codeChallenge: challenge, codeChallengeMethod: 'S256', scope: 'read write', instance: 'social.example' },
      'http://localhost/api/v1/oauth/callback',
    ),
  );
  const outcome = await oauth.completeLogin({ state: toInstance.searchParams.get('state')!, code: instances.approve('42') });
  const back = new URL(await oauth.decideConsent(outcome.consent!.ticket, 'approve'));
  return back.searchParams.get('code')!;
}

function outcomes(results: PromiseSettledResult<TokenResponse>[]): { won: TokenResponse[]; refusals: string[] } {
  const won = results.filter((r): r is PromiseFulfilledResult<TokenResponse> => r.status === 'fulfilled').map((r) => r.value);
  const refusals = results
    .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    .map((r) => (r.reason instanceof OAuthError ? r.reason.code : String(r.reason)));
  return { won, refusals };
}

async function accessTokenRevoked(tokenId: string): Promise<boolean> {
  const row = await database.db.selectFrom('tokens').select('revoked_at').where('id', '=', tokenId).executeTakeFirstOrThrow();
  return row.revoked_at !== null;
}

async function issuedAccessTokenIds(): Promise<string[]> {
  const db = database.db;
  return (await db.selectFrom('oauth_refresh_tokens').select('access_token_id').execute()).map((row) => row.access_token_id);
}

beforeEach(async () => {
  testDatabase = await openTestDatabase();
  database = testDatabase.database;
  const tables = await database.db.introspection.getTables();
  if (!tables.some((table) => table.name === 'oauth_clients')) await oauthMigration.up(database.db as Kysely<unknown>);
  instances = new FakeInstances();
  forgotten = 0;
  const plain = await service('none', {});
  client = await plain.registerClient({ clientName: 'racer', redirectUris: ['https://client.example/cb'], scopes: 'read write' });
});
afterEach(() => testDatabase.close());

describe('races', () => {
  it(`${RACERS} redemptions of one code that all read it unspent: exactly one wins, the reuse revokes its tokens`, async () => {
    const gate: { wait?: () => Promise<void> } = {};
    const oauth = await service('oauth_codes', gate);
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(oauth, challenge);
    gate.wait = barrier(RACERS);
    const results = await Promise.allSettled(
      Array.from({ length: RACERS }, () =>
        oauth.redeemCode(client, { code, redirectUri: 'https://client.example/cb', codeVerifier: verifier }),
      ),
    );
    const { won, refusals } = outcomes(results);
    expect(won).toHaveLength(1);
    expect(refusals).toEqual(Array(RACERS - 1).fill('invalid_grant'));
    const [issued] = await issuedAccessTokenIds();
    expect(await accessTokenRevoked(issued!)).toBe(true);
    expect(forgotten).toBeGreaterThan(0);
  });

  it(`${RACERS} uses of one refresh token that all read it unspent: exactly one rotates, the reuse revokes the family`, async () => {
    const gate: { wait?: () => Promise<void> } = {};
    const oauth = await service('oauth_refresh_tokens', gate);
    const { verifier, challenge } = pkcePair();
    const first = await oauth.redeemCode(client, {
      code: await codeFor(oauth, challenge),
      redirectUri: 'https://client.example/cb',
      codeVerifier: verifier,
    });
    gate.wait = barrier(RACERS);
    const results = await Promise.allSettled(
      Array.from({ length: RACERS }, () => oauth.refresh(client, { refreshToken: first.refresh_token })),
    );
    const { won, refusals } = outcomes(results);
    expect(won).toHaveLength(1);
    expect(refusals).toEqual(Array(RACERS - 1).fill('invalid_grant'));
    const ids = await issuedAccessTokenIds();
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(await accessTokenRevoked(id)).toBe(true);
    delete gate.wait;
    await expect(oauth.refresh(client, { refreshToken: won[0]!.refresh_token })).rejects.toMatchObject({ code: 'invalid_grant' });
  });
});

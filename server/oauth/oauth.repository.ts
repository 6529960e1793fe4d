/** SQL of the OAuth feature: plain functions taking the db or a transaction first. */
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../platform/db/database.js';
import type {
  OAuthClientsTable,
  OAuthCodesTable,
  OAuthConsentsTable,
  OAuthInstanceAppsTable,
  OAuthLoginsTable,
  OAuthRefreshTokensTable,
  OAuthTokenFamiliesTable,
} from './oauth.tables.js';

/** The database as this feature sees it: `Database`, which lists OAuthTables. */
export type OAuthDb = Kysely<Database>;

export type ClientRow = Selectable<OAuthClientsTable>;
export type InstanceAppRow = Selectable<OAuthInstanceAppsTable>;
export type LoginRow = Selectable<OAuthLoginsTable>;
export type ConsentRow = Selectable<OAuthConsentsTable>;
export type CodeRow = Selectable<OAuthCodesTable>;
export type FamilyRow = Selectable<OAuthTokenFamiliesTable>;
export type RefreshRow = Selectable<OAuthRefreshTokensTable>;
/** A refresh-token row with its family's client, user, scopes and revocation. */
export type RefreshWithFamily = RefreshRow & Pick<FamilyRow, 'client_id' | 'user_id' | 'scopes' | 'revoked_at_ms'>;

export async function insertClient(db: OAuthDb, row: ClientRow): Promise<void> {
  await db.insertInto('oauth_clients').values(row).execute();
}

export async function findClient(db: OAuthDb, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export async function findInstanceApp(db: OAuthDb, instance: string, redirectUri: string): Promise<InstanceAppRow | undefined> {
  return db
    .selectFrom('oauth_instance_apps')
    .selectAll()
    .where('instance', '=', instance)
    .where('redirect_uri', '=', redirectUri)
    .executeTakeFirst();
}

/** Stores the registration unless one for that instance and callback exists already (the first one stays). */
export async function insertInstanceApp(db: OAuthDb, row: InstanceAppRow): Promise<void> {
  await db
    .insertInto('oauth_instance_apps')
    .values(row)
    .onConflict((oc) => oc.columns(['instance', 'redirect_uri']).doNothing())
    .execute();
}

export async function insertLogin(db: OAuthDb, row: LoginRow): Promise<void> {
  await db.insertInto('oauth_logins').values(row).execute();
}

/** Marks a pending login used, if it is unused and unexpired, in one statement; returns it, or undefined. */
export async function consumeLogin(db: OAuthDb, stateHash: string, nowMs: number): Promise<LoginRow | undefined> {
  return db
    .updateTable('oauth_logins')
    .set({ used_at_ms: nowMs })
    .where('state_hash', '=', stateHash)
    .where('used_at_ms', 'is', null)
    .where('expires_at_ms', '>', nowMs)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes pending logins that expired before `beforeMs`. */
export async function deleteLoginsExpiredBefore(db: OAuthDb, beforeMs: number): Promise<void> {
  await db.deleteFrom('oauth_logins').where('expires_at_ms', '<', beforeMs).execute();
}

export async function insertConsent(db: OAuthDb, row: ConsentRow): Promise<void> {
  await db.insertInto('oauth_consents').values(row).execute();
}

export async function findConsent(db: OAuthDb, ticketHash: string): Promise<ConsentRow | undefined> {
  return db.selectFrom('oauth_consents').selectAll().where('ticket_hash', '=', ticketHash).executeTakeFirst();
}

/** Spends a consent ticket: like consumeLogin, exactly one of concurrent decisions gets the row. */
export async function consumeConsent(db: OAuthDb, ticketHash: string, nowMs: number): Promise<ConsentRow | undefined> {
  return db
    .updateTable('oauth_consents')
    .set({ used_at_ms: nowMs })
    .where('ticket_hash', '=', ticketHash)
    .where('used_at_ms', 'is', null)
    .where('expires_at_ms', '>', nowMs)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes consent tickets that expired before `beforeMs` (used or not). */
export async function deleteConsentsExpiredBefore(db: OAuthDb, beforeMs: number): Promise<void> {
  await db.deleteFrom('oauth_consents').where('expires_at_ms', '<', beforeMs).execute();
}

export async function insertCode(db: OAuthDb, row: CodeRow): Promise<void> {
  await db.insertInto('oauth_codes').values(row).execute();
}

export async function findCode(db: OAuthDb, codeHash: string): Promise<CodeRow | undefined> {
  return db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
}

/**
 * Spends a code: one UPDATE that only an unused, unexpired code matches, so of any number of
 * concurrent redemptions exactly one sees a row changed. True for that one.
 */
export async function consumeCode(db: OAuthDb, codeHash: string, nowMs: number): Promise<boolean> {
  const result = await db
    .updateTable('oauth_codes')
    .set({ used_at_ms: nowMs })
    .where('code_hash', '=', codeHash)
    .where('used_at_ms', 'is', null)
    .where('expires_at_ms', '>', nowMs)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes codes that expired before `beforeMs` (used or not). */
export async function deleteCodesExpiredBefore(db: OAuthDb, beforeMs: number): Promise<void> {
  await db.deleteFrom('oauth_codes').where('expires_at_ms', '<', beforeMs).execute();
}

export async function insertFamily(db: OAuthDb, row: FamilyRow): Promise<void> {
  await db.insertInto('oauth_token_families').values(row).execute();
}

export async function findFamilyIdByCode(db: OAuthDb, codeHash: string): Promise<string | undefined> {
  const row = await db.selectFrom('oauth_token_families').select('id').where('code_hash', '=', codeHash).executeTakeFirst();
  return row?.id;
}

/** True when the family is revoked, or gone. */
export async function isFamilyRevoked(db: OAuthDb, familyId: string): Promise<boolean> {
  const row = await db.selectFrom('oauth_token_families').select('revoked_at_ms').where('id', '=', familyId).executeTakeFirst();
  return row === undefined || row.revoked_at_ms !== null;
}

/** Marks a family revoked; false when it was already (or does not exist). */
export async function revokeFamily(db: OAuthDb, familyId: string, nowMs: number): Promise<boolean> {
  const result = await db
    .updateTable('oauth_token_families')
    .set({ revoked_at_ms: nowMs })
    .where('id', '=', familyId)
    .where('revoked_at_ms', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertRefreshToken(db: OAuthDb, row: RefreshRow): Promise<void> {
  await db.insertInto('oauth_refresh_tokens').values(row).execute();
}

const withFamily = (db: OAuthDb) =>
  db
    .selectFrom('oauth_refresh_tokens as r')
    .innerJoin('oauth_token_families as f', 'f.id', 'r.family_id')
    .selectAll('r')
    .select(['f.client_id', 'f.user_id', 'f.scopes', 'f.revoked_at_ms']);

export async function findRefreshToken(db: OAuthDb, tokenHash: string): Promise<RefreshWithFamily | undefined> {
  return withFamily(db).where('r.token_hash', '=', tokenHash).executeTakeFirst();
}

/** The token response an access token was issued in, by the access token's hash. */
export async function findByAccessTokenHash(db: OAuthDb, accessTokenHash: string): Promise<RefreshWithFamily | undefined> {
  return withFamily(db).where('r.access_token_hash', '=', accessTokenHash).executeTakeFirst();
}

/** Spends a refresh token (rotation): like consumeCode, exactly one of concurrent uses wins. */
export async function consumeRefreshToken(db: OAuthDb, tokenHash: string, nowMs: number): Promise<boolean> {
  const result = await db
    .updateTable('oauth_refresh_tokens')
    .set({ used_at_ms: nowMs })
    .where('token_hash', '=', tokenHash)
    .where('used_at_ms', 'is', null)
    .where('expires_at_ms', '>', nowMs)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ids of the family's access tokens that have not expired yet (the only ones worth revoking). */
export async function unexpiredAccessTokenIds(db: OAuthDb, familyId: string, nowMs: number): Promise<string[]> {
  const rows = await db
    .selectFrom('oauth_refresh_tokens')
    .select('access_token_id')
    .where('family_id', '=', familyId)
    .where('access_expires_at_ms', '>', nowMs)
    .execute();
  return rows.map((row) => row.access_token_id);
}

/**
 * Deletes what can no longer be used: logins, consents and codes expired before `cutoffMs` and
 * families whose every refresh token expired before it (their rows go with them).
 */
export async function purgeExpired(db: OAuthDb, cutoffMs: number): Promise<number> {
  let deleted = 0;
  const count = (result: { numDeletedRows: bigint }) => (deleted += Number(result.numDeletedRows));
  count(await db.deleteFrom('oauth_logins').where('expires_at_ms', '<', cutoffMs).executeTakeFirst());
  count(await db.deleteFrom('oauth_consents').where('expires_at_ms', '<', cutoffMs).executeTakeFirst());
  count(await db.deleteFrom('oauth_codes').where('expires_at_ms', '<', cutoffMs).executeTakeFirst());
  count(
    await db
      .deleteFrom('oauth_token_families')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('oauth_refresh_tokens as r')
              .select('r.token_hash')
              .whereRef('r.family_id', '=', 'oauth_token_families.id')
              .where('r.expires_at_ms', '>=', cutoffMs),
          ),
        ),
      )
      .where('created_at_ms', '<', cutoffMs)
      .executeTakeFirst(),
  );
  return deleted;
}

/** Live (not revoked) token families of these user ids. */
export async function countLiveFamilies(db: OAuthDb, userIds: readonly string[]): Promise<number> {
  const families = await db
    .selectFrom('oauth_token_families')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', 'in', userIds)
    .where('revoked_at_ms', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(families.n);
}

/** Deletes the refresh tokens of these user ids' token families (before the families go); the number deleted. */
export async function deleteRefreshTokensOfUsers(db: OAuthDb, userIds: readonly string[]): Promise<number> {
  const result = await db
    .deleteFrom('oauth_refresh_tokens')
    .where('family_id', 'in', db.selectFrom('oauth_token_families').select('id').where('user_id', 'in', userIds))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

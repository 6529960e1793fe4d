/** SQL for service tokens. */
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../db/database.js';
import { queryTemplate } from '../db/precompiled-query.js';
import type { TokensTable } from './auth.tables.js';

export type TokenRow = Selectable<TokensTable>;

/** Stores a new token row. */
export async function insertToken(db: Kysely<Database>, row: TokenRow): Promise<void> {
  await db.insertInto('tokens').values(row).execute();
}

/** The token with this hash, if any (revoked and expired included). */
export async function findTokenByHash(db: Kysely<Database>, tokenHash: string): Promise<TokenRow | undefined> {
  return (await tokenByHashQuery(db, [tokenHash])).rows[0];
}

// Runs on every authenticated request: built once (see queryTemplate).
const tokenByHashQuery = queryTemplate((db: Kysely<Database>, [tokenHash]) =>
  db
    .selectFrom('tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash as string),
);

/** Tokens newest first: all of them, or with `liveAt` (ISO time) only those neither revoked nor expired then. */
export async function listTokens(db: Kysely<Database>, filter: { liveAt?: string } = {}): Promise<TokenRow[]> {
  let query = db.selectFrom('tokens').selectAll();
  const { liveAt } = filter;
  if (liveAt !== undefined) {
    query = query.where('revoked_at', 'is', null).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', liveAt)]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id').execute();
}

/** Ids of tokens starting with `prefix` (revoked and expired included), at most `limit`. */
export async function findTokenIdsByPrefix(db: Kysely<Database>, prefix: string, limit: number): Promise<string[]> {
  // substr() rather than LIKE: an id has no wildcards to escape, and it reads the same in PostgreSQL.
  const rows = await db
    .selectFrom('tokens')
    .select('id')
    .where((eb) => eb(eb.fn('substr', ['id', eb.val(1), eb.val(prefix.length)]), '=', prefix))
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Marks a token revoked; returns false when no live token has that id. */
export async function revokeToken(db: Kysely<Database>, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('tokens')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Live (neither revoked nor expired at `nowIso`) tokens of these user ids, OAuth access tokens included. */
export async function countLiveTokens(db: Kysely<Database>, userIds: readonly string[], nowIso: string): Promise<number> {
  const tokens = await db
    .selectFrom('tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', 'in', userIds)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowIso)]))
    .executeTakeFirstOrThrow();
  return Number(tokens.n);
}

/** Deletes tokens that expired or were revoked before `cutoff`; returns how many. */
export async function purgeDeadTokens(db: Kysely<Database>, cutoff: string): Promise<number> {
  const result = await db
    .deleteFrom('tokens')
    .where((eb) => eb.or([eb('expires_at', '<', cutoff), eb('revoked_at', '<', cutoff)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

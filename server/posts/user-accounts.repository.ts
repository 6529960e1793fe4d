/**
 * Which stored accounts are a user's, and whose user each account is: the user id itself, or
 * `<account id>@<host>` (`accountOfUser`, the rule the ranking's own-post exclusion uses too)
 * for an account whose URL is on `<host>`. The privacy feature's `UserAccounts` (its erasure
 * removes the RAG chunks of the user's posts; the index leaves out authors at `none`), wired in
 * server/features.ts.
 */
import type { Kysely } from 'kysely';
import { accountOfUser } from '../../src/auth/user-account.js';
import type { Database } from '../platform/db/database.js';

/** The stored accounts that are this user's. */
export async function findOwnAccountIds(db: Kysely<Database>, userId: string): Promise<string[]> {
  const account = accountOfUser(userId);
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'url'])
    .where('id', 'in', [...new Set([userId, account?.accountId ?? userId])])
    .execute();
  return rows.filter((row) => row.id === userId || (account !== undefined && hostOf(row.url) === account.host)).map((row) => row.id);
}

/** The user id of each of these stored accounts (`<account id>@<host>`, or the id itself when its URL has no host); unknown ones left out. */
export async function userIdsOfAccounts(db: Kysely<Database>, accountIds: readonly string[]): Promise<Map<string, string>> {
  const userIds = new Map<string, string>();
  for (let i = 0; i < accountIds.length; i += 500) {
    const rows = await db
      .selectFrom('accounts')
      .select(['id', 'url'])
      .where('id', 'in', accountIds.slice(i, i + 500))
      .execute();
    for (const row of rows) {
      const host = hostOf(row.url);
      userIds.set(row.id, host === undefined ? row.id : `${row.id}@${host}`);
    }
  }
  return userIds;
}

/** `host[:port]` of a URL, lowercased; undefined when it is not one. */
export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

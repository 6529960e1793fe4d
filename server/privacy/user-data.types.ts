/**
 * What other features hold of a user beyond the tables with a `user_id` column (those the
 * privacy feature finds from the schema itself: user-data.repository.ts). Each owner
 * contributes its part to the export and to a full erasure, and the parts are wired in
 * server/features.ts, so privacy's SQL names no other feature's table (as Mastodon's and
 * Discourse's user deletion asks each model for its own rows).
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../platform/db/database.js';

/** What one part did in an erasure's transaction. */
export interface UserDataErased {
  /** Rows it deleted, per table (tables with none left out). */
  deleted: Record<string, number>;
  /** Live credentials among what the erasure revokes (counted before the `user_id` tables are emptied). */
  credentialsRevoked: number;
}

/** One owner's part of a user's data; `keys` are the user's raw id and pseudonym. */
export interface UserDataPart {
  /** Rows for the export, per table, read in the export's transaction after the `user_id` tables (tables with none left out). */
  exportRows?(db: Kysely<Database>, keys: readonly string[]): Promise<Record<string, Record<string, unknown>[]>>;
  /** A full erasure, in its transaction, before the `user_id` tables are emptied. */
  erase?(trx: Transaction<Database>, keys: readonly string[], nowMs: number): Promise<UserDataErased>;
  /**
   * Any erasure that deletes the user's tracking rows (a full erasure, a level lowered to
   * `none`), in its transaction, before the `user_id` tables are emptied: takes back what
   * those rows added elsewhere (their interactions' counts on the posts). Returns what to
   * announce once the transaction has committed, if anything.
   */
  untrack?(trx: Transaction<Database>, keys: readonly string[]): Promise<(() => Promise<void>) | undefined>;
}

/** Which stored accounts are a user's: the RAG index's chunks of their posts go with them. */
export interface UserAccounts {
  /** The stored accounts that are this user's. */
  ownAccountIds(userId: string): Promise<string[]>;
  /** The user id of each of these stored accounts (`<account id>@<host>`, or the id itself). */
  userIdsOf(accountIds: readonly string[]): Promise<Map<string, string>>;
}

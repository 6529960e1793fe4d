/**
 * The service tokens' part of a user's erasure (the privacy feature's `UserDataPart`, wired in
 * server/features.ts): the live ones are counted as revoked credentials; their rows go with
 * the other tables that have a `user_id` column.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { countLiveTokens } from './token.repository.js';

export const tokenUserData = {
  async erase(
    trx: Kysely<Database>,
    keys: readonly string[],
    nowMs: number,
  ): Promise<{ deleted: Record<string, number>; credentialsRevoked: number }> {
    return { deleted: {}, credentialsRevoked: await countLiveTokens(trx, keys, new Date(nowMs).toISOString()) };
  },
};

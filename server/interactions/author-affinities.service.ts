/**
 * The interactions feature's interface for consent: when an author's consent to being indexed
 * or discovered is gone (FASP data sharing), what users were learned to like about that author
 * (their `author` rows in user_affinities) goes with it.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { deleteAuthorAffinities } from './interaction.repository.js';

/** Deletes every user's affinity to the author; the users who had one (their cached profiles must be dropped). */
export function forgetAuthorAffinities(db: Kysely<Database>, accountId: string): Promise<string[]> {
  return deleteAuthorAffinities(db, accountId);
}

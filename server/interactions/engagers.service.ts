/**
 * The interactions feature's interface for trending: who engaged with the posts of a window,
 * counted as distinct users per post and per instance (src/ranking/trending.ts,
 * `distinctEngagement`). A social user's id is `<account id>@<instance host>`; an id without
 * '@' is the service's own API user, grouped under instance ''.
 */
import type { Kysely } from 'kysely';
import type { EngagerGroup } from '../../src/ranking/index.js';
import type { Database } from '../platform/db/database.js';
import { engagerGroupRows } from './interaction.repository.js';

/** The distinct engagers of one post from one instance. */
export interface PostEngagerGroup extends EngagerGroup {
  readonly postId: string;
}

/** Distinct favouriting and reblogging users of each post created since `sinceMs`, by post and instance (one grouped query). */
export async function postEngagerGroups(db: Kysely<Database>, sinceMs: number): Promise<PostEngagerGroup[]> {
  const rows = await engagerGroupRows(db, sinceMs);
  return rows.map((row) => ({
    postId: row.post_id,
    instance: row.instance,
    favourites: Number(row.favourites),
    reblogs: Number(row.reblogs),
  }));
}

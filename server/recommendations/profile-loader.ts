/**
 * Builds a user's ranking profile from their stored history (interactions, feedback,
 * explicit preferences) the first time it is needed; the ranking state keeps it after.
 */
import type { Kysely } from 'kysely';
import { buildUserProfile, type InteractionAction, type RankablePost, type UserPreferences, type UserProfile } from '../../src/ranking/index.js';
import type { Database } from '../db/database.js';
import { allUserInteractions } from '../interactions/interaction.repository.js';
import { toRankable } from '../posts/post.mapper.js';
import { findRankableRows } from '../posts/post.repository.js';
import type { RankingState } from './ranking-state.js';
import { allUserFeedback, findPreferences, type PreferencesRow } from './recommendation.repository.js';

const ID_CHUNK = 500;

/** Explicit preferences of a stored row in the engine's shape. */
export function toUserPreferences(row: PreferencesRow): UserPreferences {
  const list = (json: string): string[] => JSON.parse(json) as string[];
  return {
    favouredAuthors: list(row.favoured_authors),
    mutedAuthors: list(row.muted_authors),
    favouredTags: list(row.favoured_tags),
    mutedTags: list(row.muted_tags),
    languages: list(row.languages),
    includeReblogs: row.include_reblogs === 1,
  };
}

/** The user's profile: cached, or built from the database and cached. */
export async function loadProfile(db: Kysely<Database>, state: RankingState, userId: string): Promise<UserProfile> {
  const cached = state.cachedProfile(userId);
  if (cached) return cached;
  const version = state.userVersion(userId);
  const [interactions, feedback, preferences] = await Promise.all([
    allUserInteractions(db, userId),
    allUserFeedback(db, userId),
    findPreferences(db, userId),
  ]);
  const ids = [...new Set([...interactions.map((i) => i.post_id), ...feedback.map((f) => f.post_id)])];
  const posts = new Map<string, RankablePost>();
  for (let i = 0; i < ids.length; i += ID_CHUNK) {
    for (const row of await findRankableRows(db, ids.slice(i, i + ID_CHUNK))) posts.set(row.id, toRankable(row));
  }
  const profile = buildUserProfile(
    {
      userId,
      // A user's account on the instance has the user's id: their own posts are never recommended.
      accountId: userId,
      interactions: interactions.flatMap((i) => {
        const post = posts.get(i.post_id);
        return post ? [{ post, action: i.action_type as InteractionAction, createdAtMs: i.created_at_ms }] : [];
      }),
      feedback: feedback.flatMap((f) => {
        const post = posts.get(f.post_id);
        return post ? [{ post, feedback: f.feedback as 'more' | 'less', createdAtMs: f.created_at_ms }] : [];
      }),
      ...(preferences ? { preferences: toUserPreferences(preferences) } : {}),
    },
    state.index,
  );
  state.storeProfile(profile, version);
  return profile;
}

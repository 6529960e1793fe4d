/**
 * Builds a user's ranking profile the first time it is needed; the ranking state keeps it
 * after. Author and tag affinities come from the stored affinities in one indexed read;
 * the interest vector and the seen posts replay the history (they need each post's terms).
 */
import type { Kysely } from 'kysely';
import { buildProfileFromAffinities, type UserPreferences, type UserProfile } from '../../src/ranking/index.js';
import type { Database } from '../db/database.js';
import type { InteractionService } from '../interactions/interaction.service.js';
import type { PostService } from '../posts/post.service.js';
import type { RankingState } from '../ranking-state/ranking-state.service.js';
import { allUserFeedback, findPreferences, type PreferencesRow } from './recommendation.repository.js';

/** What a profile is read from: the features that own the history. */
export interface ProfileSources {
  db: Kysely<Database>;
  state: RankingState;
  posts: PostService;
  interactions: InteractionService;
}

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
export async function loadProfile(sources: ProfileSources, userId: string): Promise<UserProfile> {
  const { db, state, posts, interactions } = sources;
  const cached = state.cachedProfile(userId);
  if (cached) return cached;
  const version = state.userVersion(userId);
  const [history, feedback, preferences, affinities] = await Promise.all([
    interactions.history(userId),
    allUserFeedback(db, userId),
    findPreferences(db, userId),
    interactions.affinities(userId),
  ]);
  const byId = await posts.rankablePosts([...new Set([...history.map((i) => i.postId), ...feedback.map((f) => f.post_id)])]);
  const profile = buildProfileFromAffinities(
    {
      userId,
      // A user's account on the instance has the user's id: their own posts are never recommended.
      accountId: userId,
      affinities,
      signals: history.length + feedback.length,
      interactions: history.flatMap((i) => {
        const post = byId.get(i.postId);
        return post ? [{ post, action: i.action, createdAtMs: i.createdAtMs }] : [];
      }),
      feedback: feedback.flatMap((f) => {
        const post = byId.get(f.post_id);
        return post ? [{ post, feedback: f.feedback as 'more' | 'less', createdAtMs: f.created_at_ms }] : [];
      }),
      ...(preferences ? { preferences: toUserPreferences(preferences) } : {}),
    },
    state.index,
  );
  state.storeProfile(profile, version);
  return profile;
}

/**
 * "More / less of this kind of post" and the explicit preferences: both are stored, and
 * change the user's in-memory profile at once so the next list reflects them.
 */
import type { Kysely } from 'kysely';
import { FEEDBACK_STRENGTH, learnedPreferences, normaliseTag, DEFAULT_PREFERENCES, type EngagedPost } from '../../src/ranking/index.js';
import type { SignalWrite } from '../interactions/interaction.service.js';
import { NotFoundError } from '../../src/errors.js';
import type { Feedback, Preferences, PreferencesUpdate } from '../../src/schemas/recommendation.schema.js';
import type { Database } from '../db/database.js';
import { generatePostId } from '../../src/post-ids.js';
import { loadProfile, toUserPreferences, type ProfileSources } from './profile-loader.js';
import type { RankingPolicy } from './ranking-policy.types.js';
import * as repo from './recommendation.repository.js';

export class FeedbackService {
  private readonly db: Kysely<Database>;

  constructor(
    private readonly sources: ProfileSources,
    private readonly policy: RankingPolicy,
  ) {
    this.db = sources.db;
  }

  /** Records feedback on a post: its author and tags move up ("more") or down ("less"). */
  async feedback(userId: string, postId: string, feedback: 'more' | 'less', nowMs = Date.now()): Promise<Feedback> {
    const row = {
      id: generatePostId(nowMs),
      user_id: userId,
      post_id: postId,
      feedback,
      created_at: new Date(nowMs).toISOString(),
      created_at_ms: nowMs,
    };
    const { interactions } = this.sources;
    let pending: SignalWrite | undefined;
    let done: { post: EngagedPost; written: SignalWrite };
    try {
      done = await this.db.transaction().execute(async (trx) => {
        const engaged = await this.sources.posts.engagedPost(trx, postId);
        if (!engaged) throw new NotFoundError(`No post with id ${postId}`);
        await repo.insertFeedback(trx, row);
        pending = await interactions.addSignal(trx, userId, engaged, FEEDBACK_STRENGTH[feedback], nowMs);
        return { post: engaged, written: pending };
      });
    } catch (error) {
      if (pending) interactions.settled(pending, true);
      throw error;
    }
    const { post, written } = done;
    this.sources.state.userSignalsChanged(userId, {
      kind: 'feedback',
      feedback: { post, feedback, createdAtMs: nowMs },
      terms: written.terms,
    });
    interactions.settled(written);
    try {
      await this.policy.feedback?.({ userId, postId, feedback });
    } catch {
      // Observers must not break feedback.
    }
    return { id: row.id, user_id: userId, post_id: postId, feedback, created_at: row.created_at };
  }

  /** Explicit and learned preferences of a user. */
  async preferences(userId: string, nowMs = Date.now()): Promise<Preferences> {
    const row = await repo.findPreferences(this.db, userId);
    const explicit = row ? toUserPreferences(row) : DEFAULT_PREFERENCES;
    const learned = learnedPreferences(await loadProfile(this.sources, userId), nowMs);
    const round = (x: number): number => Math.round(x * 1e4) / 1e4;
    return {
      user_id: userId,
      favoured_authors: [...explicit.favouredAuthors],
      muted_authors: [...explicit.mutedAuthors],
      favoured_tags: [...explicit.favouredTags],
      muted_tags: [...explicit.mutedTags],
      languages: [...explicit.languages],
      include_reblogs: explicit.includeReblogs,
      recommendation_ratio: row?.recommendation_ratio ?? null,
      learned: {
        authors: learned.authors.map((a) => ({ account_id: a.accountId, affinity: round(a.affinity) })),
        tags: learned.tags.map((t) => ({ tag: t.tag, affinity: round(t.affinity) })),
      },
      updated_at: row?.updated_at ?? null,
    };
  }

  /** Changes the given explicit preferences (the others keep their value). */
  async updatePreferences(update: PreferencesUpdate, nowMs = Date.now()): Promise<Preferences> {
    const userId = update.user_id;
    const current = await repo.findPreferences(this.db, userId);
    const base = current ? toUserPreferences(current) : DEFAULT_PREFERENCES;
    const tags = (xs: string[] | undefined): string[] | undefined => (xs === undefined ? undefined : [...new Set(xs.map(normaliseTag))]);
    const next = {
      favouredAuthors: update.favoured_authors ?? [...base.favouredAuthors],
      mutedAuthors: update.muted_authors ?? [...base.mutedAuthors],
      favouredTags: tags(update.favoured_tags) ?? [...base.favouredTags],
      mutedTags: tags(update.muted_tags) ?? [...base.mutedTags],
      languages: update.languages ?? [...base.languages],
      includeReblogs: update.include_reblogs ?? base.includeReblogs,
    };
    const ratio = update.recommendation_ratio !== undefined ? update.recommendation_ratio : (current?.recommendation_ratio ?? null);
    await repo.upsertPreferences(this.db, {
      user_id: userId,
      favoured_authors: JSON.stringify(next.favouredAuthors),
      muted_authors: JSON.stringify(next.mutedAuthors),
      favoured_tags: JSON.stringify(next.favouredTags),
      muted_tags: JSON.stringify(next.mutedTags),
      languages: JSON.stringify(next.languages),
      include_reblogs: next.includeReblogs ? 1 : 0,
      recommendation_ratio: ratio,
      updated_at: new Date(nowMs).toISOString(),
    });
    this.sources.state.userSignalsChanged(userId, { kind: 'preferences', preferences: next });
    return this.preferences(userId, nowMs);
  }

  /** The share of a timeline given to recommendations for this user (null: default). */
  async recommendationRatio(userId: string): Promise<number | null> {
    return (await repo.findPreferences(this.db, userId))?.recommendation_ratio ?? null;
  }
}

/**
 * "More / less of this kind of post" and the explicit preferences: both are stored, and
 * change the user's in-memory profile at once so the next list reflects them.
 *
 * For a user at tracking level `none` neither is stored nor announced (the ranking state
 * gets no signal): feedback answers as it would have (`stored: false` for the route), and a
 * preferences update answers with the preferences it would have set, none of it kept.
 * Feedback of other users is also added to their experiment counts (by pseudonym).
 */
import type { Kysely } from 'kysely';
import {
  FEEDBACK_STRENGTH,
  learnedPreferences,
  normaliseTag,
  DEFAULT_PREFERENCES,
  type EngagedPost,
  type UserPreferences,
} from '../../src/ranking/index.js';
import type { SignalWrite } from '../interactions/interaction.service.js';
import { NotFoundError } from '../../src/errors.js';
import type { Feedback, Preferences, PreferencesUpdate } from '../../src/schemas/recommendation.schema.js';
import type { Database } from '../platform/db/database.js';
import { UNMEASURED_FEEDBACK, type FeedbackMeasurement } from './feedback-measurement.types.js';
import type { PrivacyPolicy } from '../privacy/privacy-policy.types.js';
import { UNWIRED_PRIVACY } from '../privacy/privacy-policy.types.js';
import { generatePostId } from '../../src/post-ids.js';
import { loadProfile, toUserPreferences, type ProfileSources } from './profile-loader.js';
import type { RankingPolicy } from './ranking-policy.types.js';
import * as repo from './recommendation.repository.js';

export class FeedbackService {
  private readonly db: Kysely<Database>;

  constructor(
    private readonly sources: ProfileSources,
    private readonly policy: RankingPolicy,
    private readonly privacy: PrivacyPolicy = UNWIRED_PRIVACY,
    /** Experiment measurement, in the feedback's transaction (experimentMeasurement, wired in server/features.ts). */
    private readonly measurement: FeedbackMeasurement = UNMEASURED_FEEDBACK,
  ) {
    this.db = sources.db;
  }

  /** Records feedback on a post: its author and tags move up ("more") or down ("less"). */
  async feedback(userId: string, postId: string, feedback: 'more' | 'less', nowMs = Date.now()): Promise<Feedback> {
    return (await this.record(userId, postId, feedback, nowMs)).feedback;
  }

  /** As `feedback`, saying whether it was stored (false: the user's tracking level is `none`; the post must still exist). */
  async record(
    userId: string,
    postId: string,
    feedback: 'more' | 'less',
    nowMs = Date.now(),
  ): Promise<{ feedback: Feedback; stored: boolean }> {
    const row = {
      id: generatePostId(nowMs),
      user_id: userId,
      post_id: postId,
      feedback,
      created_at: new Date(nowMs).toISOString(),
      created_at_ms: nowMs,
    };
    const answer = { id: row.id, user_id: userId, post_id: postId, feedback, created_at: row.created_at };
    if (!this.privacy.allowanceFor(userId).storeInteractions) {
      if (!(await this.sources.posts.engagedPost(this.db, postId))) throw new NotFoundError(`No post with id ${postId}`);
      return { feedback: answer, stored: false };
    }
    const { interactions } = this.sources;
    let pending: SignalWrite | undefined;
    let done: { post: EngagedPost; written: SignalWrite };
    try {
      // In the interactions' group commit: every write of the user's stored interest vector is
      // serialised with the others (on PostgreSQL across instances, under the batch's lock).
      done = await interactions.inSignalBatch(async (trx) => {
        const engaged = await this.sources.posts.engagedPost(trx, postId);
        if (!engaged) throw new NotFoundError(`No post with id ${postId}`);
        await repo.insertFeedback(trx, row);
        pending = await interactions.addSignal(trx, userId, engaged, FEEDBACK_STRENGTH[feedback], nowMs);
        await this.measurement.feedbackStored(trx, this.privacy.pseudonym(userId), nowMs, feedback === 'more');
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
    return { feedback: answer, stored: true };
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
      allow_sensitive: explicit.allowSensitive,
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
    const next: UserPreferences = {
      favouredAuthors: update.favoured_authors ?? [...base.favouredAuthors],
      mutedAuthors: update.muted_authors ?? [...base.mutedAuthors],
      favouredTags: tags(update.favoured_tags) ?? [...base.favouredTags],
      mutedTags: tags(update.muted_tags) ?? [...base.mutedTags],
      languages: update.languages ?? [...base.languages],
      includeReblogs: update.include_reblogs ?? base.includeReblogs,
      allowSensitive: update.allow_sensitive ?? base.allowSensitive,
    };
    const ratio = update.recommendation_ratio !== undefined ? update.recommendation_ratio : (current?.recommendation_ratio ?? null);
    if (!this.privacy.allowanceFor(userId).storeInteractions) return this.unstoredPreferences(userId, next, ratio);
    await repo.upsertPreferences(this.db, {
      user_id: userId,
      favoured_authors: JSON.stringify(next.favouredAuthors),
      muted_authors: JSON.stringify(next.mutedAuthors),
      favoured_tags: JSON.stringify(next.favouredTags),
      muted_tags: JSON.stringify(next.mutedTags),
      languages: JSON.stringify(next.languages),
      include_reblogs: next.includeReblogs ? 1 : 0,
      recommendation_ratio: ratio,
      allow_sensitive: next.allowSensitive ? 1 : 0,
      updated_at: new Date(nowMs).toISOString(),
    });
    this.sources.state.userSignalsChanged(userId, { kind: 'preferences', preferences: next });
    return this.preferences(userId, nowMs);
  }

  /** The preferences an update of a user at `none` would have set: nothing stored, nothing learned. */
  private unstoredPreferences(userId: string, next: UserPreferences, ratio: number | null): Preferences {
    return {
      user_id: userId,
      favoured_authors: [...next.favouredAuthors],
      muted_authors: [...next.mutedAuthors],
      favoured_tags: [...next.favouredTags],
      muted_tags: [...next.mutedTags],
      languages: [...next.languages],
      include_reblogs: next.includeReblogs,
      allow_sensitive: next.allowSensitive,
      recommendation_ratio: ratio,
      learned: { authors: [], tags: [] },
      updated_at: null,
    };
  }

  /** The share of a timeline given to recommendations for this user (null: default). */
  async recommendationRatio(userId: string): Promise<number | null> {
    return (await repo.findPreferences(this.db, userId))?.recommendation_ratio ?? null;
  }
}

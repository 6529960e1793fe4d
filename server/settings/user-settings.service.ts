/**
 * A user's settings. `recommendation_ratio`, `languages`, `include_reblogs` and
 * `allow_sensitive` are the user's recommendation preferences, read and written through the preferences' owner
 * (FeedbackService: it stores them in `user_preferences` and tells the ranking state),
 * so the setting and the preference are one value: the timelines' blend reads that same
 * ratio. The experiments opt-out and the reason language live in `user_settings`.
 *
 * PATCH: an omitted field keeps its value; `null` puts `recommendation_ratio` or
 * `reason_language` back to its default. A change of the opt-out makes the experiments
 * runtime forget the user's cached enrolment at once.
 */
import type { Kysely } from 'kysely';
import { chooseReasonLanguage } from '../../src/ranking/reason-language.js';
import { isReasonLanguage, type ReasonLanguage } from '../../src/ranking/reason-text.js';
import type { Preferences, PreferencesUpdate } from '../../src/schemas/recommendation.schema.js';
import {
  DEFAULT_RECOMMENDATION_RATIO,
  type UserSettingName,
  type UserSettings,
  type UserSettingsPatch,
} from '../../src/settings/settings.schema.js';
import { LruCache } from '../../src/lru-cache.js';
import type { Database } from '../platform/db/database.js';
import { changeUserSettings, findUserSettings, type UserSettingsRow } from './settings.repository.js';

/** The recommendation preferences' owner (FeedbackService). */
export interface PreferenceStore {
  preferences(
    userId: string,
  ): Promise<Pick<Preferences, 'languages' | 'include_reblogs' | 'allow_sensitive' | 'recommendation_ratio' | 'updated_at'>>;
  updatePreferences(update: PreferencesUpdate): Promise<unknown>;
}

/** What the settings need of the experiments runtime (ExperimentRuntime). */
export interface EnrolmentControl {
  /** Adds a rule that keeps users out of every experiment. */
  excludeUsersWhen(excluded: (userId: string) => Promise<boolean>): void;
  /** Forgets one user's cached enrolment. */
  forgetUser(userId: string): void;
}

export interface UserSettingsDeps {
  db: Kysely<Database>;
  preferences: PreferenceStore;
  experiments?: EnrolmentControl;
  now?: () => number;
  /** Users whose opt-out and reason language are cached (read on every recommendation). */
  cacheSize?: number;
}

type OwnSettings = Pick<UserSettingsRow, 'experiments_opt_out' | 'reason_language' | 'updated_at_ms'>;

export class UserSettingsService {
  private readonly now: () => number;
  /** The `user_settings` row of recently seen users (null: none); dropped on every write of this process. */
  private readonly cache: LruCache<string, OwnSettings | null>;

  constructor(private readonly deps: UserSettingsDeps) {
    this.now = deps.now ?? Date.now;
    this.cache = new LruCache(deps.cacheSize ?? 10_000);
    deps.experiments?.excludeUsersWhen(async (userId) => (await this.own(userId))?.experiments_opt_out === 1);
  }

  /** The user's effective settings; `acceptLanguage` decides the reason language when the user set none. */
  async get(userId: string, acceptLanguage?: string): Promise<UserSettings> {
    const [own, preferences] = await Promise.all([this.own(userId), this.deps.preferences.preferences(userId)]);
    const defaults: UserSettingName[] = [];
    if (preferences.recommendation_ratio === null) defaults.push('recommendation_ratio');
    if (preferences.updated_at === null) defaults.push('languages', 'include_reblogs', 'allow_sensitive');
    if (!own) defaults.push('experiments_opt_out');
    const reasonLanguage = reasonLanguageOf(own);
    if (reasonLanguage === null) defaults.push('reason_language');
    return {
      user_id: userId,
      recommendation_ratio: preferences.recommendation_ratio ?? DEFAULT_RECOMMENDATION_RATIO,
      languages: preferences.languages,
      include_reblogs: preferences.include_reblogs,
      allow_sensitive: preferences.allow_sensitive,
      experiments_opt_out: own?.experiments_opt_out === 1,
      reason_language: reasonLanguage,
      effective_reason_language: chooseReasonLanguage(reasonLanguage, acceptLanguage),
      defaults,
      updated_at: latest(own?.updated_at_ms, preferences.updated_at),
    };
  }

  /** Changes the given settings (omitted ones keep their value) and returns the result. */
  async update(userId: string, patch: UserSettingsPatch, acceptLanguage?: string): Promise<UserSettings> {
    const { recommendation_ratio, languages, include_reblogs, allow_sensitive, experiments_opt_out, reason_language } = patch;
    if (experiments_opt_out !== undefined || reason_language !== undefined) {
      const change = {
        ...(experiments_opt_out !== undefined ? { experiments_opt_out: experiments_opt_out ? 1 : 0 } : {}),
        ...(reason_language !== undefined ? { reason_language } : {}),
      };
      await changeUserSettings(this.deps.db, userId, change, this.now());
      this.cache.delete(userId);
      if (experiments_opt_out !== undefined) this.deps.experiments?.forgetUser(userId);
    }
    if (recommendation_ratio !== undefined || languages !== undefined || include_reblogs !== undefined || allow_sensitive !== undefined) {
      await this.deps.preferences.updatePreferences({
        user_id: userId,
        ...(recommendation_ratio !== undefined ? { recommendation_ratio } : {}),
        ...(languages !== undefined ? { languages } : {}),
        ...(include_reblogs !== undefined ? { include_reblogs } : {}),
        ...(allow_sensitive !== undefined ? { allow_sensitive } : {}),
      });
    }
    return this.get(userId, acceptLanguage);
  }

  /**
   * Another process changed this user's settings (undefined: anyone's may have changed): what
   * is cached of them is dropped, and so is the user's enrolment (their opt-out may have changed).
   */
  changedElsewhere(userId: string | undefined): void {
    if (userId === undefined) {
      this.cache.clear();
      return;
    }
    this.cache.delete(userId);
    this.deps.experiments?.forgetUser(userId);
  }

  /** The language of this user's reasons: their setting, else `Accept-Language`, else English. */
  async reasonLanguage(userId: string | undefined, acceptLanguage: string | undefined): Promise<ReasonLanguage> {
    const setting = userId === undefined ? null : reasonLanguageOf(await this.own(userId));
    return chooseReasonLanguage(setting, acceptLanguage);
  }

  private async own(userId: string): Promise<OwnSettings | null> {
    const cached = this.cache.get(userId);
    if (cached !== undefined) return cached;
    const row = (await findUserSettings(this.deps.db, userId)) ?? null;
    const own = row && {
      experiments_opt_out: row.experiments_opt_out,
      reason_language: row.reason_language,
      updated_at_ms: row.updated_at_ms,
    };
    this.cache.set(userId, own);
    return own;
  }
}

function reasonLanguageOf(own: OwnSettings | null): ReasonLanguage | null {
  const stored = own?.reason_language;
  return stored !== null && stored !== undefined && isReasonLanguage(stored) ? stored : null;
}

function latest(ownMs: number | undefined, preferencesAt: string | null): string | null {
  const times = [ownMs, preferencesAt === null ? undefined : Date.parse(preferencesAt)].filter((t): t is number => t !== undefined);
  return times.length === 0 ? null : new Date(Math.max(...times)).toISOString();
}

/**
 * Builds a user's ranking profile the first time it is needed (after a start, or after the
 * ranking state dropped it); the state keeps it after. Nothing is replayed: the profile is
 * restored from what the write paths keep up to date in the same transaction as each
 * signal — the stored author and tag affinities, the stored interest vector — plus the ids
 * of the posts the user engaged with (excluded from their lists) and their explicit
 * preferences: five indexed reads whose cost does not grow with the posts' text, made by one
 * statement (each feature's tables read by its own subqueries, server/platform/db/user-columns.ts).
 */
import type { Kysely } from 'kysely';
import { accountOfUser } from '../../src/auth/user-account.js';
import {
  buildProfileFromStored,
  FEEDBACK_STRENGTH,
  INTERACTION_STRENGTH,
  type EngagedPost,
  type UserPreferences,
  type UserProfile,
} from '../../src/ranking/index.js';
import type { Database } from '../platform/db/database.js';
import type { InteractionService, StoredSignals } from '../interactions/interaction.service.js';
import type { PostService } from '../posts/post.service.js';
import type { PrivacyPolicy } from '../privacy/privacy-policy.types.js';
import type { RankingState } from '../ranking-state/ranking-state.service.js';
import { userColumnsReader, type UserColumns } from '../platform/db/user-columns.js';
import {
  allUserFeedback,
  feedbackUsers,
  profileColumns,
  type ProfilePreferencesRow,
  type ProfileRows,
} from './recommendation.repository.js';

/** What a profile is read from: the features that own the history. */
export interface ProfileSources {
  db: Kysely<Database>;
  state: RankingState;
  posts: PostService;
  interactions: InteractionService;
  /** Users whose level stores nothing (`none`) get a non-personalised profile; absent: everyone personalised. */
  privacy?: Pick<PrivacyPolicy, 'allowanceFor'>;
}

/** Explicit preferences of a stored row in the engine's shape. */
export function toUserPreferences(row: ProfilePreferencesRow): UserPreferences {
  const list = (json: string): string[] => JSON.parse(json) as string[];
  return {
    favouredAuthors: list(row.favoured_authors),
    mutedAuthors: list(row.muted_authors),
    favouredTags: list(row.favoured_tags),
    mutedTags: list(row.muted_tags),
    languages: list(row.languages),
    includeReblogs: row.include_reblogs === 1,
    allowSensitive: row.allow_sensitive === 1,
  };
}

/** The one statement of a profile's reads, per interactions' columns (one object: built once). */
const readers = new WeakMap<UserColumns<StoredSignals>, (db: Kysely<Database>, userId: string) => Promise<[StoredSignals, ProfileRows]>>();

function profileReader(
  signals: UserColumns<StoredSignals>,
): (db: Kysely<Database>, userId: string) => Promise<[StoredSignals, ProfileRows]> {
  let reader = readers.get(signals);
  if (reader === undefined) readers.set(signals, (reader = userColumnsReader(signals, profileColumns)));
  return reader;
}

/** The user's profile: cached, or restored from the database (one statement) and cached. */
export async function loadProfile(sources: ProfileSources, userId: string): Promise<UserProfile> {
  const { db, state, interactions } = sources;
  const cached = state.cachedProfile(userId);
  if (cached) return cached;
  const version = state.userVersion(userId);
  const accountId = await ownAccountId(sources.posts, userId);
  if (sources.privacy && !sources.privacy.allowanceFor(userId).storeInteractions) {
    // Tracking level `none`: nothing about the user is read (nor kept): the same list as an
    // anonymous reader's, except that their own posts stay out of it.
    const anonymous = buildProfileFromStored({
      userId,
      accountId,
      affinities: [],
      interest: undefined,
      seenPostIds: [],
    });
    state.storeProfile(anonymous, version);
    return anonymous;
  }
  const [{ affinities, interest, interactedPostIds: interacted }, { feedbackPostIds: feedback, preferences }] = await profileReader(
    interactions.signalColumns,
  )(db, userId);
  const profile = buildProfileFromStored({
    userId,
    // The account the user id stands for: their own posts are never recommended.
    accountId,
    affinities,
    interest,
    seenPostIds: feedback.length === 0 ? interacted : [...interacted, ...feedback],
    ...(preferences ? { preferences: toUserPreferences(preferences) } : {}),
  });
  state.storeProfile(profile, version);
  return profile;
}

/**
 * The service's id of the account a user id stands for: `<account id>@<host>` is that
 * instance's account, which its mapping names (posts carry the service's account ids); an
 * account the instance never showed has no posts stored, and any other user id is an account
 * id as it is.
 */
async function ownAccountId(posts: Pick<PostService, 'accountIdFor'>, userId: string): Promise<string> {
  const account = accountOfUser(userId);
  if (account === undefined) return userId;
  return (await posts.accountIdFor(account.host, account.accountId)) ?? account.accountId;
}

/** Users whose interest vectors one backfill transaction rebuilds. */
const BACKFILL_BATCH = 500;

/**
 * Once, for a database written before interest vectors were stored (migration 0015): rebuilds
 * every user's vector by replaying their interactions and feedback in time order with the
 * pool's idf now, before the service answers. A database that stores any vector, or holds no
 * signals, is left alone. Returns the number of users rebuilt.
 */
export async function backfillInterests(sources: ProfileSources, log: (message: string) => void): Promise<number> {
  const { db, interactions, posts } = sources;
  if (await interactions.hasStoredInterests()) return 0;
  const users = [...new Set([...(await interactions.interactingUsers()), ...(await feedbackUsers(db))])].sort();
  if (users.length === 0) return 0;
  const started = Date.now();
  for (let i = 0; i < users.length; i += BACKFILL_BATCH) {
    const batch = users.slice(i, i + BACKFILL_BATCH);
    const histories = await Promise.all(
      batch.map(async (userId) => ({ userId, history: await interactions.history(userId), feedback: await allUserFeedback(db, userId) })),
    );
    const byId = await posts.rankablePosts([
      ...new Set(histories.flatMap((h) => [...h.history.map((e) => e.postId), ...h.feedback.map((f) => f.post_id)])),
    ]);
    const signals = new Map<string, { post: EngagedPost; amount: number; atMs: number }[]>();
    for (const { userId, history, feedback } of histories) {
      const list = [
        ...history.flatMap((e) => {
          const post = byId.get(e.postId);
          return post ? [{ post, amount: INTERACTION_STRENGTH[e.action], atMs: e.createdAtMs }] : [];
        }),
        ...feedback.flatMap((f) => {
          const post = byId.get(f.post_id);
          return post ? [{ post, amount: FEEDBACK_STRENGTH[f.feedback as 'more' | 'less'], atMs: f.created_at_ms }] : [];
        }),
      ].sort((a, b) => a.atMs - b.atMs);
      signals.set(userId, list);
    }
    await db.transaction().execute((trx) => interactions.storeRebuiltInterests(trx, signals));
  }
  log(
    `stored interest vectors: rebuilt ${users.length} users' from their history in ${Date.now() - started} ms (once, after migration 0015)`,
  );
  return users.length;
}

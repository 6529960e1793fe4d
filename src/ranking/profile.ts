/**
 * A user's learned and explicit preferences, built once from their history and then
 * updated in place on each new interaction or feedback, so the server can keep profiles
 * in memory instead of re-reading the history on every request.
 */
import { DecayedSums, storedAfterAddingTo, type DecayedColumns, type StoredDecayedSums } from './decayed-sums.js';
import { AFFINITY_HALF_LIFE_MS } from './features.js';
import type {
  EngagedPost,
  InteractionAction,
  InterestTerms,
  ProfileFeedback,
  ProfileInteraction,
  RankablePost,
  StoredAffinity,
  UserPreferences,
  UserSignal,
} from './ranking.types.js';
import { DEFAULT_PREFERENCES } from './ranking.types.js';
import { MAX_RECENT_POSTS } from './collaborative.js';
import { normaliseTag } from './text.js';

/** What the profile needs from the index: TF-IDF vectors with the pool's idf. */
export interface TermWeigher {
  termVector(post: Pick<RankablePost, 'text' | 'tags'>): Map<string, number>;
}

/** A reblog spreads a post and a bookmark keeps it: both say more than a favourite. */
export const INTERACTION_STRENGTH: Readonly<Record<InteractionAction, number>> = {
  favorite: 1,
  bookmark: 1.5,
  reblog: 2,
};

/** Explicit feedback outweighs an implicit signal; "less" more so, because it is rarer. */
export const FEEDBACK_STRENGTH: Readonly<Record<'more' | 'less', number>> = { more: 2, less: -3 };

/** The interest vector keeps its strongest terms only, to bound memory and ranking cost. */
export const MAX_INTEREST_TERMS = 256;

/** Learned and explicit preferences of one user. Mutated only by this module's functions. */
export interface UserProfile {
  readonly userId: string;
  /** The user's own account (their posts are never recommended to them). */
  accountId: string | null;
  /** Account id -> decayed affinity (negative after "less" feedback). */
  readonly authorAffinity: DecayedSums;
  /** Lowercase tag -> decayed affinity. */
  readonly tagAffinity: DecayedSums;
  /** Term (word or `#tag`) -> decayed TF-IDF weight of what the user engaged with. */
  readonly interest: DecayedSums;
  /** Post id -> number of live interactions or feedback on it (such posts are excluded). */
  readonly seenPosts: Map<string, number>;
  /**
   * The posts of the user's most recent interactions, newest first, distinct, at most
   * MAX_RECENT_POSTS (the collaborative feature's seeds); undefined until read (only rankings
   * that weigh the collaborative feature need them), then kept by each interaction.
   */
  recentPosts?: string[] | undefined;
  preferences: UserPreferences;
  /** Interactions and feedback applied; 0 means cold start. */
  signals: number;
  /** Decayed values cached for ranking (see `decayedSnapshot`); dropped on every update. */
  snapshot?: DecayedSnapshot | undefined;
}

/** The profile's affinities and interests evaluated at one instant. */
export interface DecayedSnapshot {
  readonly atMs: number;
  readonly authors: DecayedColumns;
  readonly interest: DecayedColumns;
}

/** Over an hour a 14-day half-life moves values by 0.2%: not worth recomputing per request. */
const SNAPSHOT_TTL_MS = 3_600_000;

/** Everything a profile is built from. */
export interface UserProfileInput {
  readonly userId: string;
  readonly accountId?: string | null;
  readonly interactions?: Iterable<ProfileInteraction>;
  readonly feedback?: Iterable<ProfileFeedback>;
  readonly preferences?: Partial<UserPreferences>;
}

/** A profile with no history and default preferences. */
export function emptyProfile(userId: string, accountId: string | null = null, interest?: StoredDecayedSums): UserProfile {
  return {
    userId,
    accountId,
    authorAffinity: new DecayedSums(AFFINITY_HALF_LIFE_MS),
    tagAffinity: new DecayedSums(AFFINITY_HALF_LIFE_MS),
    interest: interestVector(interest),
    seenPosts: new Map(),
    preferences: DEFAULT_PREFERENCES,
    signals: 0,
  };
}

/** Builds a profile from a user's whole history (the same as applying each event in turn). */
export function buildUserProfile(input: UserProfileInput, weigher: TermWeigher): UserProfile {
  const profile = emptyProfile(input.userId, input.accountId ?? null);
  profile.recentPosts = [];
  if (input.preferences !== undefined) setPreferences(profile, input.preferences);
  for (const interaction of input.interactions ?? []) applyInteraction(profile, interaction, weigher);
  for (const feedback of input.feedback ?? []) applyFeedback(profile, feedback, weigher);
  return profile;
}

/**
 * Applies one interaction; `undo` (an unfavourite, an unreblog) subtracts the same amount
 * at the same instant, which cancels the author and tag affinity exactly and the interest
 * vector up to the idf drift since it was added.
 */
export function applyInteraction(
  profile: UserProfile,
  interaction: ProfileInteraction,
  weigher: TermWeigher,
  mode: 'add' | 'undo' = 'add',
  terms?: InterestTerms,
): void {
  const sign = mode === 'add' ? 1 : -1;
  const amount = sign * INTERACTION_STRENGTH[interaction.action];
  learn(profile, interaction.post, amount, interaction.createdAtMs, terms ?? interestTerms(interaction.post, amount, weigher));
  markSeen(profile, interaction.post.id, sign);
  profile.signals = Math.max(0, profile.signals + sign);
  if (profile.recentPosts !== undefined) setRecentPosts(profile, interaction.post.id, mode === 'add');
}

/** Keeps a profile's recent posts: an interaction's post goes first (`add`), an undone one leaves. */
function setRecentPosts(profile: UserProfile, postId: string, add: boolean): void {
  const recent = (profile.recentPosts ?? []).filter((id) => id !== postId);
  if (add) recent.unshift(postId);
  if (recent.length > MAX_RECENT_POSTS) recent.length = MAX_RECENT_POSTS;
  profile.recentPosts = recent;
}

/** Applies one "more"/"less" answer: it moves the post's author, tags and terms up or down. */
export function applyFeedback(profile: UserProfile, feedback: ProfileFeedback, weigher: TermWeigher, terms?: InterestTerms): void {
  const amount = FEEDBACK_STRENGTH[feedback.feedback];
  learn(profile, feedback.post, amount, feedback.createdAtMs, terms ?? interestTerms(feedback.post, amount, weigher));
  markSeen(profile, feedback.post.id, 1);
  profile.signals += 1;
}

/**
 * Applies one announced change of a user's signals (see UserSignal). The interest terms the
 * writer computed and stored travel with the signal, so the profile in memory adds exactly
 * what the stored interest vector got, even if the pool's idf moved since.
 */
export function applySignal(profile: UserProfile, change: UserSignal, weigher: TermWeigher): void {
  if (change.kind === 'interaction') {
    applyInteraction(profile, change.interaction, weigher, change.undo === true ? 'undo' : 'add', change.terms);
  } else if (change.kind === 'feedback') applyFeedback(profile, change.feedback, weigher, change.terms);
  else setPreferences(profile, change.preferences);
}

/**
 * What a signal of `amount` about `post` adds to the interest vector: the post's TF-IDF
 * vector (the pool's idf now) times the amount. Computed once per signal by its writer,
 * which adds it to the stored interest vector and announces it with the signal.
 */
export function interestTerms(post: Pick<EngagedPost, 'text' | 'tags'>, amount: number, weigher: TermWeigher): InterestTerms {
  return Array.from(weigher.termVector(post), ([term, weight]): [string, number] => [term, amount * weight]);
}

/** Adds a signal's interest terms at `atMs`, keeping the vector bounded (the stored vector and the profile alike). */
export function addInterest(interest: DecayedSums, terms: InterestTerms, atMs: number): void {
  interest.addAll(terms, atMs);
  // Pruning in halves keeps it amortised.
  if (interest.size > 2 * MAX_INTEREST_TERMS) interest.keepStrongest(MAX_INTEREST_TERMS);
}

/**
 * The stored form of `interest` after `addInterest(interest, terms, atMs)`, leaving
 * `interest` as it is (it may be a cached profile's, which adds the same terms later,
 * when the signal is announced, to the same numbers).
 */
export function interestAfter(interest: DecayedSums, terms: InterestTerms, atMs: number): StoredDecayedSums {
  return interest.storedAfterAdding(terms, atMs, 2 * MAX_INTEREST_TERMS, MAX_INTEREST_TERMS);
}

/**
 * `interestAfter(interestVector(stored), terms, atMs)`, to the last bit, without restoring the
 * vector (a writer that read it from the database: see `storedAfterAddingTo`).
 */
export function interestAfterStored(stored: StoredDecayedSums | undefined, terms: InterestTerms, atMs: number): StoredDecayedSums {
  if (stored === undefined) return interestAfter(interestVector(), terms, atMs);
  return storedAfterAddingTo(AFFINITY_HALF_LIFE_MS, stored, terms, atMs, 2 * MAX_INTEREST_TERMS, MAX_INTEREST_TERMS);
}

/** An empty interest vector, or one restored from its stored form. */
export function interestVector(stored?: StoredDecayedSums): DecayedSums {
  return stored === undefined ? new DecayedSums(AFFINITY_HALF_LIFE_MS) : DecayedSums.fromStored(AFFINITY_HALF_LIFE_MS, stored);
}

/** A stored affinity smaller than this is what an undo left: not worth a key. */
const NEGLIGIBLE_AFFINITY = 1e-9;

/** What a profile is restored from: the state its writers keep up to date (no history replay). */
export interface StoredProfileInput {
  readonly userId: string;
  readonly accountId?: string | null;
  /** One row per author or tag, kept by every interaction, undo and feedback. */
  readonly affinities: Iterable<StoredAffinity>;
  /** The interest vector as its writers stored it (see `addInterest`); none for a user without signals. */
  readonly interest?: StoredDecayedSums | undefined;
  /** The post of every live interaction and feedback (a post twice when it has two). */
  readonly seenPostIds: Iterable<string>;
  readonly preferences?: Partial<UserPreferences>;
}

/**
 * Restores a profile from the state kept at write time: the stored affinities, the stored
 * interest vector and the posts of the live signals. It equals the profile that applied
 * each signal in memory as it happened (`buildUserProfile` with the idf of each moment),
 * the author and tag affinities to rounding (they are decayed in SQL), the interest vector
 * to the last bit. `signals` is the number of live signals.
 */
export function buildProfileFromStored(input: StoredProfileInput): UserProfile {
  const profile = emptyProfile(input.userId, input.accountId ?? null, input.interest);
  if (input.preferences !== undefined) setPreferences(profile, input.preferences);
  for (const a of input.affinities) {
    // An undone signal leaves its row at (about) zero: it carries nothing.
    if (Math.abs(a.score) < NEGLIGIBLE_AFFINITY) continue;
    if (a.kind === 'author') profile.authorAffinity.add(a.target, a.score, a.asOfMs);
    else profile.tagAffinity.add(normaliseTag(a.target), a.score, a.asOfMs);
  }
  let signals = 0;
  for (const postId of input.seenPostIds) {
    markSeen(profile, postId, 1);
    signals += 1;
  }
  profile.signals = signals;
  return profile;
}

/** Replaces the explicit preferences (missing fields keep their current value). */
export function setPreferences(profile: UserProfile, preferences: Partial<UserPreferences>): void {
  const lower = (xs: readonly string[]): string[] => xs.map(normaliseTag);
  profile.preferences = {
    ...profile.preferences,
    ...preferences,
    ...(preferences.favouredTags !== undefined ? { favouredTags: lower(preferences.favouredTags) } : {}),
    ...(preferences.mutedTags !== undefined ? { mutedTags: lower(preferences.mutedTags) } : {}),
  };
}

/**
 * About how many bytes of memory a profile holds once ranked (for caches bounded in
 * bytes): a fixed part, each key of its sums and seen posts (a map entry, its key string
 * and its number), and the decayed snapshot every ranking builds (an entry per author and
 * interest key). An estimate, calibrated against V8 heap snapshots (bench/README.md,
 * Memory), not an exact count.
 */
export function estimatedProfileBytes(profile: UserProfile): number {
  const keys =
    profile.authorAffinity.size +
    profile.tagAffinity.size +
    profile.interest.size +
    profile.seenPosts.size +
    (profile.recentPosts?.length ?? 0);
  const snapshot = profile.authorAffinity.size + profile.interest.size;
  return PROFILE_BASE_BYTES + PROFILE_KEY_BYTES * keys + SNAPSHOT_ENTRY_BYTES * snapshot;
}

const PROFILE_BASE_BYTES = 1_000;
const PROFILE_KEY_BYTES = 100;
const SNAPSHOT_ENTRY_BYTES = 16;

/** True when nothing is known about what the user likes: the cold-start ranking applies. */
export function isColdStart(profile: UserProfile): boolean {
  const p = profile.preferences;
  return profile.signals === 0 && p.favouredAuthors.length === 0 && p.favouredTags.length === 0;
}

/** The learned preferences at `nowMs`, strongest first (for the preferences endpoint). */
export function learnedPreferences(
  profile: UserProfile,
  nowMs: number,
  top = 20,
): { authors: { accountId: string; affinity: number }[]; tags: { tag: string; affinity: number }[] } {
  const ranked = (sums: DecayedSums): [string, number][] =>
    sums
      .entriesAt(nowMs)
      .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]) || (a[0] < b[0] ? -1 : 1))
      .slice(0, top);
  return {
    authors: ranked(profile.authorAffinity).map(([accountId, affinity]) => ({ accountId, affinity })),
    tags: ranked(profile.tagAffinity).map(([tag, affinity]) => ({ tag, affinity })),
  };
}

/** The decayed author affinities and interest weights at about `nowMs` (cached for an hour). */
export function decayedSnapshot(profile: UserProfile, nowMs: number): DecayedSnapshot {
  const cached = profile.snapshot;
  if (cached !== undefined && Math.abs(nowMs - cached.atMs) < SNAPSHOT_TTL_MS) return cached;
  profile.snapshot = { atMs: nowMs, authors: profile.authorAffinity.columnsAt(nowMs), interest: profile.interest.columnsAt(nowMs) };
  return profile.snapshot;
}

function learn(profile: UserProfile, post: EngagedPost, amount: number, atMs: number, terms: InterestTerms): void {
  profile.snapshot = undefined;
  profile.authorAffinity.add(post.accountId, amount, atMs);
  for (const tag of new Set(post.tags)) profile.tagAffinity.add(normaliseTag(tag), amount, atMs);
  addInterest(profile.interest, terms, atMs);
}

function markSeen(profile: UserProfile, postId: string, sign: 1 | -1): void {
  const count = (profile.seenPosts.get(postId) ?? 0) + sign;
  if (count > 0) profile.seenPosts.set(postId, count);
  else profile.seenPosts.delete(postId);
}

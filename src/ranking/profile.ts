/**
 * A user's learned and explicit preferences, built once from their history and then
 * updated in place on each new interaction or feedback, so the server can keep profiles
 * in memory instead of re-reading the history on every request.
 */
import { DecayedSums, type DecayedColumns } from './decayed-sums.js';
import { AFFINITY_HALF_LIFE_MS } from './features.js';
import type {
  EngagedPost,
  InteractionAction,
  ProfileFeedback,
  ProfileInteraction,
  RankablePost,
  StoredAffinity,
  UserPreferences,
  UserSignal,
} from './ranking.types.js';
import { DEFAULT_PREFERENCES } from './ranking.types.js';
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
export function emptyProfile(userId: string, accountId: string | null = null): UserProfile {
  return {
    userId,
    accountId,
    authorAffinity: new DecayedSums(AFFINITY_HALF_LIFE_MS),
    tagAffinity: new DecayedSums(AFFINITY_HALF_LIFE_MS),
    interest: new DecayedSums(AFFINITY_HALF_LIFE_MS),
    seenPosts: new Map(),
    preferences: DEFAULT_PREFERENCES,
    signals: 0,
  };
}

/** Builds a profile from a user's whole history (the same as applying each event in turn). */
export function buildUserProfile(input: UserProfileInput, weigher: TermWeigher): UserProfile {
  const profile = emptyProfile(input.userId, input.accountId ?? null);
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
): void {
  const sign = mode === 'add' ? 1 : -1;
  learn(profile, interaction.post, sign * INTERACTION_STRENGTH[interaction.action], interaction.createdAtMs, weigher);
  markSeen(profile, interaction.post.id, sign);
  profile.signals = Math.max(0, profile.signals + sign);
}

/** Applies one "more"/"less" answer: it moves the post's author, tags and terms up or down. */
export function applyFeedback(profile: UserProfile, feedback: ProfileFeedback, weigher: TermWeigher): void {
  learn(profile, feedback.post, FEEDBACK_STRENGTH[feedback.feedback], feedback.createdAtMs, weigher);
  markSeen(profile, feedback.post.id, 1);
  profile.signals += 1;
}

/** Applies one announced change of a user's signals (see UserSignal). */
export function applySignal(profile: UserProfile, change: UserSignal, weigher: TermWeigher): void {
  if (change.kind === 'interaction') applyInteraction(profile, change.interaction, weigher, change.undo === true ? 'undo' : 'add');
  else if (change.kind === 'feedback') applyFeedback(profile, change.feedback, weigher);
  else setPreferences(profile, change.preferences);
}

/** A stored affinity smaller than this is what an undo left: not worth a key. */
const NEGLIGIBLE_AFFINITY = 1e-9;

/**
 * Builds a profile whose author and tag affinities come from the stored affinities (one
 * row per author or tag, kept by every interaction, undo and feedback) instead of replaying
 * each event; the interest vector and the seen posts still replay the history, because
 * they need each post's terms and id. `signals` is the number of live events.
 */
export function buildProfileFromAffinities(
  input: UserProfileInput & { readonly affinities: Iterable<StoredAffinity>; readonly signals: number },
  weigher: TermWeigher,
): UserProfile {
  const profile = emptyProfile(input.userId, input.accountId ?? null);
  if (input.preferences !== undefined) setPreferences(profile, input.preferences);
  for (const a of input.affinities) {
    // An undone signal leaves its row at (about) zero: it carries nothing.
    if (Math.abs(a.score) < NEGLIGIBLE_AFFINITY) continue;
    if (a.kind === 'author') profile.authorAffinity.add(a.target, a.score, a.asOfMs);
    else profile.tagAffinity.add(normaliseTag(a.target), a.score, a.asOfMs);
  }
  for (const i of input.interactions ?? []) {
    learnInterest(profile, i.post, INTERACTION_STRENGTH[i.action], i.createdAtMs, weigher);
    markSeen(profile, i.post.id, 1);
  }
  for (const f of input.feedback ?? []) {
    learnInterest(profile, f.post, FEEDBACK_STRENGTH[f.feedback], f.createdAtMs, weigher);
    markSeen(profile, f.post.id, 1);
  }
  profile.signals = input.signals;
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

function learn(profile: UserProfile, post: EngagedPost, amount: number, atMs: number, weigher: TermWeigher): void {
  profile.authorAffinity.add(post.accountId, amount, atMs);
  for (const tag of new Set(post.tags)) profile.tagAffinity.add(normaliseTag(tag), amount, atMs);
  learnInterest(profile, post, amount, atMs, weigher);
}

function learnInterest(profile: UserProfile, post: EngagedPost, amount: number, atMs: number, weigher: TermWeigher): void {
  profile.snapshot = undefined;
  const terms = weigher.termVector(post);
  for (const [term, weight] of terms) terms.set(term, amount * weight);
  profile.interest.addAll(terms, atMs);
  // Pruning in halves keeps it amortised.
  if (profile.interest.size > 2 * MAX_INTEREST_TERMS) profile.interest.keepStrongest(MAX_INTEREST_TERMS);
}

function markSeen(profile: UserProfile, postId: string, sign: 1 | -1): void {
  const count = (profile.seenPosts.get(postId) ?? 0) + sign;
  if (count > 0) profile.seenPosts.set(postId, count);
  else profile.seenPosts.delete(postId);
}

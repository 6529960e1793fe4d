/**
 * Spreads one user's profile over dense arrays indexed like the candidate pool (author
 * index, term id, slot), so the ranking loop reads numbers instead of hashing strings.
 * The arrays belong to the index and are reused: only the entries touched are reset. They
 * are as long as the index's author and term capacities, which the index keeps bounded by
 * the posts it holds (freed ids are reused).
 */
import type { CandidateIndex } from './candidate-index.js';
import { primaryLanguage } from './candidate-index.js';
import { authorPreferenceFeature, AUTHOR_AFFINITY_SCALE } from './features.js';
import { decayedSnapshot, type UserProfile } from './profile.js';
import { tagTerm } from './text.js';

/** An explicitly favoured author starts where about three recent favourites would put them. */
export const FAVOURED_AUTHOR_AFFINITY = AUTHOR_AFFINITY_SCALE;

/** An explicitly favoured tag weighs as much as one engaged post's whole vector. */
export const FAVOURED_TAG_INTEREST = 1;

interface Scratch {
  authorFeature: Float64Array;
  authorBlocked: Uint8Array;
  interest: Float64Array;
  tagMuted: Uint8Array;
  excluded: Uint8Array;
  scores: Float64Array;
  createdAt: Float64Array;
}

const scratches = new WeakMap<CandidateIndex, Scratch>();

/** A user's profile laid over the pool's arrays for one ranking; call `release` after. */
export interface UserContext {
  readonly scratch: Scratch;
  readonly interestNorm: number;
  readonly languages: ReadonlySet<string> | null;
  readonly includeReblogs: boolean;
  release(): void;
}

/** Lays the profile (and the request's excluded ids) over the index's scratch arrays. */
export function prepareUserContext(index: CandidateIndex, profile: UserProfile, nowMs: number, excludeIds: Iterable<string>): UserContext {
  const s = scratchFor(index);
  const touchedAuthors: number[] = [];
  const touchedTerms: number[] = [];
  const touchedSlots: number[] = [];
  const prefs = profile.preferences;
  const snapshot = decayedSnapshot(profile, nowMs);

  const affinity = new Map<number, number>();
  const addAffinity = (accountId: string, value: number): void => {
    const idx = index.authorIndex.get(accountId);
    if (idx !== undefined) affinity.set(idx, (affinity.get(idx) ?? 0) + value);
  };
  for (let i = 0; i < snapshot.authors.keys.length; i++) addAffinity(snapshot.authors.keys[i]!, snapshot.authors.values[i]!);
  for (const accountId of prefs.favouredAuthors) addAffinity(accountId, FAVOURED_AUTHOR_AFFINITY);
  for (const [idx, value] of affinity) {
    s.authorFeature[idx] = authorPreferenceFeature(value);
    touchedAuthors.push(idx);
  }
  const blocked = profile.accountId === null ? prefs.mutedAuthors : [...prefs.mutedAuthors, profile.accountId];
  for (const accountId of blocked) {
    const idx = index.authorIndex.get(accountId);
    if (idx === undefined) continue;
    s.authorBlocked[idx] = 1;
    touchedAuthors.push(idx);
  }

  // Favoured tags add to their term's learned interest (or stand alone).
  const favoured = new Map<string, number>();
  for (const tag of prefs.favouredTags) {
    const term = tagTerm(tag);
    favoured.set(term, (favoured.get(term) ?? 0) + FAVOURED_TAG_INTEREST);
  }
  let norm = 0;
  const addInterest = (term: string, value: number): void => {
    norm += value * value;
    const id = index.vocabulary.find(term);
    if (id === undefined) return;
    s.interest[id] = value;
    touchedTerms.push(id);
  };
  const learned = snapshot.interest;
  for (let i = 0; i < learned.keys.length; i++) {
    const term = learned.keys[i]!;
    const extra = favoured.get(term);
    if (extra !== undefined) favoured.delete(term);
    addInterest(term, learned.values[i]! + (extra ?? 0));
  }
  for (const [term, value] of favoured) addInterest(term, value);
  for (const tag of prefs.mutedTags) {
    const id = index.vocabulary.find(tagTerm(tag));
    if (id === undefined) continue;
    s.tagMuted[id] = 1;
    touchedTerms.push(id);
  }

  // Excluding a post excludes its whole reblog group: they show the same content.
  const markSlot = (slotIndex: number | undefined): void => {
    if (slotIndex === undefined || s.excluded[slotIndex] === 1) return;
    s.excluded[slotIndex] = 1;
    touchedSlots.push(slotIndex);
  };
  const markGroup = (postId: string): void => {
    const slot = index.slotOf(postId);
    markSlot(slot?.index);
    const original = slot?.post.reblogOfId ?? postId;
    if (original !== postId) markSlot(index.slotOf(original)?.index);
    for (const reblog of index.reblogsOf(original) ?? []) markSlot(reblog.index);
  };
  for (const postId of profile.seenPosts.keys()) markGroup(postId);
  for (const postId of excludeIds) markGroup(postId);

  return {
    scratch: s,
    interestNorm: Math.sqrt(norm),
    languages: prefs.languages.length > 0 ? new Set(prefs.languages.map(primaryLanguage)) : null,
    includeReblogs: prefs.includeReblogs,
    release: () => {
      for (const idx of touchedAuthors) {
        s.authorFeature[idx] = 0.5;
        s.authorBlocked[idx] = 0;
      }
      for (const id of touchedTerms) {
        s.interest[id] = 0;
        s.tagMuted[id] = 0;
      }
      for (const slotIndex of touchedSlots) s.excluded[slotIndex] = 0;
    },
  };
}

/** The index's scratch arrays, grown (by doubling) to its current author, term and slot capacities. */
function scratchFor(index: CandidateIndex): Scratch {
  const authors = index.authorCapacity;
  const terms = index.vocabulary.size;
  const slots = index.slots.length;
  let s = scratches.get(index);
  if (s === undefined || s.authorFeature.length < authors || s.interest.length < terms || s.scores.length < slots) {
    const a = Math.max(64, authors * 2);
    const t = Math.max(1024, terms * 2);
    const n = Math.max(256, slots * 2);
    s = {
      authorFeature: new Float64Array(a).fill(0.5),
      authorBlocked: new Uint8Array(a),
      interest: new Float64Array(t),
      tagMuted: new Uint8Array(t),
      excluded: new Uint8Array(n),
      scores: new Float64Array(n),
      createdAt: new Float64Array(n),
    };
    scratches.set(index, s);
  }
  return s;
}

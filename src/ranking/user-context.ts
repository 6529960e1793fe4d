/**
 * Spreads one user's profile over dense arrays indexed like the candidate pool (author
 * index, term id, slot), so the ranking loop reads numbers instead of hashing strings.
 * The arrays belong to the index and are reused: only the entries touched are reset. They
 * are as long as the index's author and term capacities, which the index keeps bounded by
 * the posts it holds (freed ids are reused).
 */
import type { CandidateIndex } from './candidate-index.js';
import { primaryLanguage, SLOT_REBLOG, SLOT_SENSITIVE } from './candidate-index.js';
import { authorPreferenceFeature, AUTHOR_AFFINITY_SCALE } from './features.js';
import { decayedSnapshot, type UserProfile } from './profile.js';
import { tagTerm } from './text.js';
import { SCORE_BUCKETS } from './top-k.js';

/** An explicitly favoured author starts where about three recent favourites would put them. */
export const FAVOURED_AUTHOR_AFFINITY = AUTHOR_AFFINITY_SCALE;

/** An explicitly favoured tag weighs as much as one engaged post's whole vector. */
export const FAVOURED_TAG_INTEREST = 1;

interface Scratch {
  authorFeature: Float64Array;
  authorBlocked: Uint8Array;
  interest: Float64Array;
  tagMuted: Uint8Array;
  /** By language id (`CandidateIndex.languageId`): 1 when the user reads it. */
  languageAllowed: Uint8Array;
  excluded: Uint8Array;
  scores: Float64Array;
  /** The ranking pass's eligible slots, in slot order (a prefix). */
  eligible: Int32Array;
  /** Eligible slots whose cosine the ranking pass put off. */
  deferred: Int32Array;
  /** Final scores, and lower bounds of all eligible scores, by `scoreBucket`. */
  histogram: Int32Array;
  lowerHistogram: Int32Array;
  /** The diversity walk's picks per author index and taken reblog groups; it resets what it touched. */
  authorPicks: Int32Array;
  groupTaken: Uint8Array;
}

const scratches = new WeakMap<CandidateIndex, Scratch>();

/** A user's profile laid over the pool's arrays for one ranking; call `release` after. */
export interface UserContext {
  readonly scratch: Scratch;
  readonly interestNorm: number;
  /** True when the user reads only some languages (`languageAllowed`; posts without one always pass). */
  readonly filterLanguages: boolean;
  /** True when some pooled tag is muted (`tagMuted`). */
  readonly anyTagMuted: boolean;
  /**
   * Slot flags that leave a post out for this user (SLOT_REBLOG without `includeReblogs`,
   * SLOT_SENSITIVE without `allowSensitive`): one test per slot covers both.
   */
  readonly skippedFlags: number;
  release(): void;
}

/** Lays the profile (and the request's excluded ids) over the index's scratch arrays. */
export function prepareUserContext(index: CandidateIndex, profile: UserProfile, nowMs: number, excludeIds: Iterable<string>): UserContext {
  const s = scratchFor(index);
  const touchedAuthors: number[] = [];
  const touchedTerms: number[] = [];
  const touchedSlots: number[] = [];
  const touchedLanguages: number[] = [];
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
  let anyTagMuted = false;
  for (const tag of prefs.mutedTags) {
    const id = index.vocabulary.find(tagTerm(tag));
    if (id === undefined) continue;
    s.tagMuted[id] = 1;
    touchedTerms.push(id);
    anyTagMuted = true;
  }
  for (const language of prefs.languages) {
    const id = index.languageId(primaryLanguage(language));
    if (id === undefined) continue;
    s.languageAllowed[id] = 1;
    touchedLanguages.push(id);
  }

  // Excluding a post excludes its whole reblog group: they show the same content.
  const markSlot = (slotIndex: number | undefined): void => {
    if (slotIndex === undefined || s.excluded[slotIndex] === 1) return;
    s.excluded[slotIndex] = 1;
    touchedSlots.push(slotIndex);
  };
  const flags = index.columns.flags;
  const markGroup = (postId: string): void => {
    const slot = index.slotOf(postId);
    let original = postId;
    if (slot !== undefined) {
      markSlot(slot.index);
      // Only a reblog's post needs reading (the flags say which are).
      if ((flags[slot.index]! & SLOT_REBLOG) !== 0) {
        original = slot.post.reblogOfId ?? postId;
        markSlot(index.slotOf(original)?.index);
      }
    }
    for (const reblog of index.reblogsOf(original) ?? []) markSlot(reblog.index);
  };
  for (const postId of profile.seenPosts.keys()) markGroup(postId);
  for (const postId of excludeIds) markGroup(postId);

  return {
    scratch: s,
    interestNorm: Math.sqrt(norm),
    filterLanguages: prefs.languages.length > 0,
    anyTagMuted,
    skippedFlags: (prefs.includeReblogs ? 0 : SLOT_REBLOG) | (prefs.allowSensitive ? 0 : SLOT_SENSITIVE),
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
      for (const id of touchedLanguages) s.languageAllowed[id] = 0;
    },
  };
}

/** The index's scratch arrays, grown (by doubling) to its current author, term, language and slot capacities. */
function scratchFor(index: CandidateIndex): Scratch {
  const authors = index.authorCapacity;
  const terms = index.vocabulary.size;
  const slots = index.slots.length;
  const languages = index.languageCapacity;
  const groups = index.groupCapacity;
  let s = scratches.get(index);
  if (
    s === undefined ||
    s.authorFeature.length < authors ||
    s.interest.length < terms ||
    s.scores.length < slots ||
    s.languageAllowed.length < languages ||
    s.groupTaken.length < groups
  ) {
    const a = Math.max(64, authors * 2);
    const t = Math.max(1024, terms * 2);
    const n = Math.max(256, slots * 2);
    s = {
      authorFeature: new Float64Array(a).fill(0.5),
      authorBlocked: new Uint8Array(a),
      interest: new Float64Array(t),
      tagMuted: new Uint8Array(t),
      languageAllowed: new Uint8Array(Math.max(64, languages * 2)),
      excluded: new Uint8Array(n),
      scores: new Float64Array(n),
      eligible: new Int32Array(n),
      deferred: new Int32Array(n),
      histogram: new Int32Array(SCORE_BUCKETS),
      lowerHistogram: new Int32Array(SCORE_BUCKETS),
      authorPicks: new Int32Array(a),
      groupTaken: new Uint8Array(Math.max(256, groups * 2)),
    };
    scratches.set(index, s);
  }
  return s;
}

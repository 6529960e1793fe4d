/**
 * The account capabilities' pure rules (discovery/follow_recommendation and
 * discovery/account_search v0.1): which accounts may be returned at all, how a search term
 * scores an account, and how the follow-recommendation signals combine.
 */
import { languageMatches } from './trends.js';

/** What the rules read of a stored account. */
export interface DiscoverableAccount {
  readonly uri: string;
  readonly username: string;
  readonly acct: string;
  readonly displayName: string;
  /** The bio as HTML, as stored. */
  readonly note: string;
  /** The account's `discoverable` as its server said it (null: it did not say). */
  readonly discoverable: boolean | null;
  readonly memorial?: boolean | undefined;
}

const OPT_OUT_TAG = /#\s*no(?:bot|index)\b/i;

/** HTML as plain text (tags dropped, the few entities Mastodon writes decoded). */
export function htmlText(html: string): string {
  return html
    .replace(/<br\s*\/?>|<\/p>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(
      /&(amp|lt|gt|quot|#39|apos|nbsp);/g,
      (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' })[e]!,
    );
}

/**
 * Whether the account may be recommended or found through another server: it said
 * `discoverable: true` (the data-sharing specification's rule for accounts; unknown is no),
 * it is not a memorial, its bio carries no `#nobot` / `#noindex`, and its id is an http(s) URI.
 */
export function accountMayBeDiscovered(account: DiscoverableAccount): boolean {
  if (account.discoverable !== true || account.memorial === true) return false;
  if (OPT_OUT_TAG.test(htmlText(account.note))) return false;
  return /^https?:\/\//i.test(account.uri);
}

/** The host of an account's URI, lowercase ('' when it is not a URL). */
export function accountHost(uri: string): string {
  try {
    return new URL(uri).host.toLowerCase();
  } catch {
    return '';
  }
}

/** A search term's words: lowercase, split on white space, a leading `@` dropped. */
export function searchWords(term: string): string[] {
  return term
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/^@/, ''))
    .filter((word) => word !== '');
}

/**
 * How well `account` matches the search `words`; 0 when a word matches nowhere. Each word
 * scores by the best place it matches: the full handle (`user@host`) or username exactly 100,
 * a handle starting with it 60, containing it 40; a display-name word exactly 50, starting
 * with it 30, containing it 20; the bio 10. An account posting in `language` gains 15.
 */
export function searchScore(
  words: readonly string[],
  account: DiscoverableAccount,
  languages: readonly string[],
  language?: string,
): number {
  const username = account.username.toLowerCase();
  const handle = `${username}@${accountHost(account.uri)}`;
  const acct = account.acct.toLowerCase();
  const display = account.displayName.toLowerCase();
  const displayWords = display.split(/\s+/).filter((w) => w !== '');
  const bio = htmlText(account.note).toLowerCase();
  let score = 0;
  for (const word of words) {
    let best = 0;
    if (word === username || word === handle || word === acct) best = 100;
    else if (username.startsWith(word) || handle.startsWith(word)) best = 60;
    else if (handle.includes(word) || acct.includes(word)) best = 40;
    if (displayWords.includes(word)) best = Math.max(best, 50);
    else if (displayWords.some((w) => w.startsWith(word))) best = Math.max(best, 30);
    else if (display.includes(word)) best = Math.max(best, 20);
    if (best === 0 && bio.includes(word)) best = 10;
    if (best === 0) return 0;
    score += best;
  }
  if (language !== undefined && languages.some((tag) => languageMatches(language, tag))) score += 15;
  return score;
}

/** Follow-recommendation signals of one candidate author, each already scaled to 0–1. */
export interface FollowSignals {
  /** Co-engagement: posts engaged with together with the account's own engagements (the collaborative state). */
  readonly coEngaged: number;
  /** The account's neighbours (users engaging with what it engages with, or with it) engage with the author. */
  readonly neighbours: number;
  /** The author's distinct engagers lately, in the requested language. */
  readonly popular: number;
}

/** Weight of popularity beside the personal signals: it orders the authors no personal signal reaches. */
export const POPULAR_WEIGHT = 0.3;

/** score = coEngaged + neighbours + POPULAR_WEIGHT · popular. */
export function followScore(signals: FollowSignals): number {
  return signals.coEngaged + signals.neighbours + POPULAR_WEIGHT * signals.popular;
}

/** Values divided by their largest (all zero when none is positive). */
export function scaledToMax(values: ReadonlyMap<string, number>): Map<string, number> {
  let max = 0;
  for (const value of values.values()) if (value > max) max = value;
  const out = new Map<string, number>();
  for (const [key, value] of values) out.set(key, max > 0 ? value / max : 0);
  return out;
}

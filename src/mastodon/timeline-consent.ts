/**
 * Consent and duplicates for blended timelines (issue 11, "Consent and fidelity"), as pure
 * rules over Mastodon Status JSON.
 *
 * A status may be stored as a candidate (and so ranked or injected) only when its author
 * lets it be discovered: public visibility, the account's `discoverable` and `indexable`
 * not false (absent counts as not false: older servers do not send them), Mastodon's
 * `noindex` not true, no `#nobot` / `#noindex` in the account's note. For a reblog both the
 * reblogger and the original's author must consent, and the original must pass the same
 * rules. Statuses that fail are still shown in the user's own page, untouched; they are only
 * never stored.
 *
 * Sensitivity is the reader's choice, not the author's: a sensitive status that consents is
 * stored (CANDIDATE_CONSENT), and the ranking leaves it out for every user whose
 * `allow_sensitive` preference is not on (src/ranking, SLOT_SENSITIVE). Where no user's
 * preference applies (posts for nobody in particular), ANONYMOUS_CONSENT keeps it out.
 */

export type StatusJson = Record<string, unknown>;

export interface ConsentOptions {
  /** Sensitive statuses pass (their readers' preference is applied elsewhere, by the ranking). */
  readonly allowSensitive: boolean;
}

/** Storing as a candidate, ranking and injecting: the authors' consent only (the ranking applies each user's `allow_sensitive`). */
export const CANDIDATE_CONSENT: ConsentOptions = { allowSensitive: true };

/** Showing stored posts to nobody in particular: no preference allows sensitive statuses. */
export const ANONYMOUS_CONSENT: ConsentOptions = { allowSensitive: false };

const OPT_OUT_TAG = /#\s*no(?:bot|index)\b/i;

function isObject(value: unknown): value is StatusJson {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The note as text: Mastodon renders hashtags as `#<span>nobot</span>`. */
function noteText(note: unknown): string {
  if (typeof note !== 'string') return '';
  return note.replace(/<[^>]*>/g, '');
}

/** The account lets its posts be discovered (unknown accounts do not). */
export function accountConsents(account: unknown): boolean {
  if (!isObject(account)) return false;
  if (account.discoverable === false) return false;
  if (account.indexable === false) return false;
  if (account.noindex === true) return false;
  return !OPT_OUT_TAG.test(noteText(account.note));
}

function statusItselfConsents(status: StatusJson, options: ConsentOptions): boolean {
  if (status.visibility !== 'public') return false;
  if (status.sensitive === true && !options.allowSensitive) return false;
  return accountConsents(status.account);
}

/** The status (and the original it reblogs) may be stored, ranked and injected (sensitive ones as `options` say). */
export function consentsToDiscovery(status: unknown, options: ConsentOptions): boolean {
  if (!isObject(status)) return false;
  if (!statusItselfConsents(status, options)) return false;
  const reblog = status.reblog;
  if (reblog === null || reblog === undefined) return true;
  return isObject(reblog) && statusItselfConsents(reblog, options);
}

/** The status, or the original it reblogs, is marked sensitive (a reblog shows its original). */
export function isSensitive(status: unknown): boolean {
  if (!isObject(status)) return false;
  return status.sensitive === true || (isObject(status.reblog) && status.reblog.sensitive === true);
}

/** Ids and URIs of a page's statuses and of the originals they reblog. */
export class PageKeys {
  private readonly keys = new Set<string>();

  constructor(statuses: readonly unknown[]) {
    for (const status of statuses) this.add(status);
  }

  /** Another set of the same keys, to add to without changing this one. */
  copy(): PageKeys {
    const copy = new PageKeys([]);
    for (const key of this.keys) copy.keys.add(key);
    return copy;
  }

  /** Every id the page holds (statuses and reblogged originals), for the recommender's exclusions. */
  get ids(): string[] {
    return [...this.keys].filter((key) => key.startsWith('id:')).map((key) => key.slice(3));
  }

  /** Every uri the page holds: the same status has another id on each instance, one uri everywhere. */
  get uris(): string[] {
    return [...this.keys].filter((key) => key.startsWith('uri:'));
  }

  add(status: unknown): void {
    for (const key of statusKeys(status)) this.keys.add(key);
  }

  /** The status, or the original it reblogs, is already on the page (by id or uri). */
  has(status: unknown): boolean {
    return statusKeys(status).some((key) => this.keys.has(key));
  }
}

/**
 * The keys of each status object seen (a kept instance page's statuses and the status cache's
 * rendered posts are the same objects page after page, and their ids and URIs never change).
 */
const keysOf = new WeakMap<object, readonly string[]>();

function statusKeys(status: unknown): readonly string[] {
  if (!isObject(status)) return [];
  let keys = keysOf.get(status);
  if (keys === undefined) {
    keys = computeKeys(status);
    keysOf.set(status, keys);
  }
  return keys;
}

function computeKeys(status: StatusJson): string[] {
  const keys: string[] = [];
  for (const item of [status, status.reblog]) {
    if (!isObject(item)) continue;
    if (typeof item.id === 'string' && item.id !== '') keys.push(`id:${item.id}`);
    if (typeof item.uri === 'string' && item.uri !== '') keys.push(`uri:${item.uri}`);
  }
  return keys;
}

/**
 * Diversity across sources: no instance and no author may take more than a share of a list
 * (the candidate pool, trending) while other posts are available. The instance of a post is
 * the one whose page first stored it (an instance can claim any origin in a `uri`, but not
 * which instance sent the page); posts written through the service's own API (instance '')
 * are not capped by instance. Posts passed over by a cap fill the list only when nothing
 * else is left (a community that is one instance, or one voice, still gets a full list).
 */

import { InputError } from '../errors.js';

/** The largest share of a list one instance, and one author, may take. */
export interface SourceShares {
  readonly instance: number;
  readonly author: number;
}

/** A quarter of the list per instance, 2% per author (40 of a 2,000-post pool; one post of a 20-post page still allowed). */
export const DEFAULT_SOURCE_SHARES: SourceShares = { instance: 0.25, author: 0.02 };

/**
 * The operator's shares (docs/federation.md): RECSVC_INSTANCE_SHARE and RECSVC_AUTHOR_SHARE, each
 * a fraction above 0 and at most 1 (`0.25`) or a percentage (`25%`); unset ones keep the defaults.
 * A share of 1 turns that cap off. Throws InputError naming the variable.
 */
export function sourceSharesFromEnv(env: Readonly<Record<string, string | undefined>>): SourceShares {
  return {
    instance: parseShare('RECSVC_INSTANCE_SHARE', env.RECSVC_INSTANCE_SHARE, DEFAULT_SOURCE_SHARES.instance),
    author: parseShare('RECSVC_AUTHOR_SHARE', env.RECSVC_AUTHOR_SHARE, DEFAULT_SOURCE_SHARES.author),
  };
}

function parseShare(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined || text.trim() === '') return fallback;
  const trimmed = text.trim();
  const percent = trimmed.endsWith('%');
  const digits = percent ? trimmed.slice(0, -1) : trimmed;
  const number = /^\d+(\.\d+)?$/.test(digits) ? Number(digits) : NaN;
  const share = percent ? number / 100 : number;
  if (!(share > 0 && share <= 1)) {
    throw new InputError(`${name} must be a share above 0 and at most 1 (such as 0.25) or a percentage (such as 25%), got "${text}"`);
  }
  return share;
}

/** What the caps read of a post. */
export interface SourcedItem {
  readonly sourceInstance: string;
  readonly accountId: string;
}

/** The first `n` of `items` (best first) under the shares, then the passed-over ones in order if fewer than `n` were taken. */
export function takeWithinShares<T extends SourcedItem>(items: readonly T[], n: number, shares: SourceShares = DEFAULT_SOURCE_SHARES): T[] {
  const perInstance = Math.max(1, Math.ceil(shares.instance * n));
  const perAuthor = Math.max(1, Math.ceil(shares.author * n));
  const instances = new Map<string, number>();
  const authors = new Map<string, number>();
  const taken: T[] = [];
  const passed: T[] = [];
  for (const item of items) {
    if (taken.length >= n) break;
    const byInstance = item.sourceInstance === '' ? 0 : (instances.get(item.sourceInstance) ?? 0);
    const byAuthor = authors.get(item.accountId) ?? 0;
    if (byInstance >= perInstance || byAuthor >= perAuthor) {
      passed.push(item);
      continue;
    }
    taken.push(item);
    if (item.sourceInstance !== '') instances.set(item.sourceInstance, byInstance + 1);
    authors.set(item.accountId, byAuthor + 1);
  }
  for (const item of passed) {
    if (taken.length >= n) break;
    taken.push(item);
  }
  return taken;
}

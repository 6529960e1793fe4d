/**
 * Diversity across sources: no instance and no author may take more than a share of a list
 * (the candidate pool, trending) while other posts are available. The instance of a post is
 * the one whose page first stored it (an instance can claim any origin in a `uri`, but not
 * which instance sent the page); posts written through the service's own API (instance '')
 * are not capped by instance. Posts passed over by a cap fill the list only when nothing
 * else is left (a community that is one instance, or one voice, still gets a full list).
 */

/** The largest share of a list one instance, and one author, may take. */
export interface SourceShares {
  readonly instance: number;
  readonly author: number;
}

/** A quarter of the list per instance, 2% per author (40 of a 2,000-post pool; one post of a 20-post page still allowed). */
export const DEFAULT_SOURCE_SHARES: SourceShares = { instance: 0.25, author: 0.02 };

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

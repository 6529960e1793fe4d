/**
 * The `candidate_pool_refresh` agent: brings the ranking state's candidate pool back in
 * step with the database. Writes through this process already reach the pool, but the pool
 * only evicts: a post that left it (older than the newest posts, not among the most engaging
 * it knew) never returns when its engagement grows later, and rows written or deleted by
 * another process on the same database are unseen until a restart.
 *
 * It is lighter than `reload` (which would drop every cached profile and list): it reads the
 * candidates the pool starts from (the newest and the most engaging posts by their stored
 * counts) and announces the difference as ordinary events — posts missing from the pool
 * (postsStored), counters that drifted (postCountsChanged), pooled posts no longer in the
 * database (postsDeleted). Events are what writers send, so a write racing the refresh is
 * never lost; a stale counter it might set is corrected by the writer's own event or the
 * next refresh.
 */
import type { Kysely } from 'kysely';
import { DEFAULT_SOURCE_SHARES, type CandidateIndex, type PoolCounts, type SourceShares } from '../../src/ranking/index.js';
import type { Agent } from '../platform/agents/agent.types.js';
import type { Database } from '../platform/db/database.js';
import type { RankingState } from '../ranking-state/ranking-state.service.js';
import { candidatePosts, engagedPosts } from './post.service.js';

type PoolState = Pick<
  RankingState,
  'index' | 'postsStored' | 'postsDeleted' | 'postCountsChanged' | 'candidateLimits' | 'reloadForImportedHistory'
>;

/** The pool refresh, every `intervalSeconds`. */
export function candidatePoolRefreshAgent(
  ranking: PoolState,
  db: Kysely<Database>,
  intervalSeconds: number,
  shares: SourceShares = DEFAULT_SOURCE_SHARES,
): Agent {
  return {
    // The fit's trigger runs it by this name after an import (server/recommendations/recommendations.feature.ts).
    name: 'candidate_pool_refresh',
    description: 'adds the newest and most engaging posts missing from the candidate pool, fixes its counters, drops deleted posts',
    intervalSeconds,
    jitterSeconds: Math.min(60, intervalSeconds / 10),
    // Brings this process's in-memory pool in step with the database.
    scope: 'instance',
    async run() {
      // Posts stored before an imported history came in hold the pool's newest places though
      // created after its end: the pool is built again as of that end (RankingState.reloadForImportedHistory).
      if (await ranking.reloadForImportedHistory()) {
        const poolSize = ranking.index.size;
        return {
          summary: `candidate pool: ${poolSize} posts, built again as of the imported history's end`,
          details: { pool_size: poolSize, reloaded: 1 },
        };
      }
      // Under an imported history, the candidates of its end, as a reload reads them (no later post retakes the newest places).
      const candidates = await candidatePosts(db, ranking.candidateLimits(Date.now()), shares);
      const missing = candidates.filter((post) => ranking.index.get(post.id) === undefined);
      let countsUpdated = 0;
      for (const post of candidates) {
        const pooled = ranking.index.get(post.id);
        if (pooled === undefined || sameCounts(pooled, post)) continue;
        ranking.postCountsChanged(post.id, {
          favourites: post.favourites,
          reblogs: post.reblogs,
          replies: post.replies,
          bookmarks: post.bookmarks ?? 0,
        });
        countsUpdated += 1;
      }
      const candidateIds = new Set(candidates.map((post) => post.id));
      const outsideCandidates = pooledIds(ranking.index).filter((id) => !candidateIds.has(id));
      const stored = await engagedPosts(db, outsideCandidates);
      const deleted = outsideCandidates.filter((id) => !stored.has(id));
      if (missing.length > 0) ranking.postsStored(missing);
      if (deleted.length > 0) ranking.postsDeleted(deleted);
      const poolSize = ranking.index.size;
      return {
        summary: `candidate pool: ${poolSize} posts (${missing.length} added, ${countsUpdated} counters updated, ${deleted.length} deleted)`,
        details: { pool_size: poolSize, added: missing.length, counts_updated: countsUpdated, deleted: deleted.length },
      };
    },
  };
}

function sameCounts(a: PoolCounts, b: PoolCounts): boolean {
  return a.favourites === b.favourites && a.reblogs === b.reblogs && a.replies === b.replies && (a.bookmarks ?? 0) === (b.bookmarks ?? 0);
}

function pooledIds(index: CandidateIndex): string[] {
  return index.slots.flatMap((slot) => (slot ? [slot.post.id] : []));
}

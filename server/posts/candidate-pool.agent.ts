/**
 * The `candidate_pool_refresh` agent: rebuilds the ranking state's candidate pool from the
 * database. Writes through this process already reach the pool, but the pool only ever
 * evicts: a post that left it (older than the newest posts, not among the most engaging it
 * knew) never returns when its engagement grows later, and rows written by another process
 * on the same database are unseen. The reload re-selects the newest and the most engaging
 * posts by their stored counts, then clears the profiles and cached lists (the cache warmer
 * rebuilds the busiest profiles).
 */
import type { CandidateIndex } from '../../src/ranking/index.js';
import type { Agent } from '../agents/agent.types.js';
import type { RankingState } from '../ranking-state/ranking-state.service.js';

/** The pool reload, every `intervalSeconds`. */
export function candidatePoolRefreshAgent(ranking: Pick<RankingState, 'reload' | 'index'>, intervalSeconds: number): Agent {
  return {
    name: 'candidate_pool_refresh',
    description: 'reloads the candidate pool (newest and most engaging posts) from the database',
    intervalSeconds,
    jitterSeconds: Math.min(60, intervalSeconds / 10),
    async run() {
      const before = new Set(pooledIds(ranking.index));
      await ranking.reload();
      const after = pooledIds(ranking.index);
      const added = after.filter((id) => !before.has(id)).length;
      const dropped = before.size - (after.length - added);
      return {
        summary: `reloaded the candidate pool: ${after.length} posts (${added} added, ${dropped} dropped)`,
        details: { pool_size: after.length, added, dropped },
      };
    },
  };
}

function pooledIds(index: CandidateIndex): string[] {
  return index.slots.flatMap((slot) => (slot ? [slot.post.id] : []));
}

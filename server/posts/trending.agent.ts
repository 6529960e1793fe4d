/** Background agent recomputing trending posts and tags. */
import type { Agent } from '../platform/agents/agent.types.js';
import type { TrendingService } from './trending.service.js';

/** The `trending_refresh` agent: recomputes the trending snapshot `/api/v1/trends` serves. */
export function trendingRefreshAgent(trending: TrendingService, intervalSeconds: number): Agent {
  return {
    name: 'trending_refresh',
    description: 'recomputes the trending posts snapshot from the last hours of engagement',
    intervalSeconds,
    // Recomputes this process's snapshot (read from the database, written nowhere).
    scope: 'instance',
    async run({ now }) {
      const snapshot = await trending.refresh(now());
      return { summary: `recomputed ${snapshot.posts.length} trending posts`, details: { trending_posts: snapshot.posts.length } };
    },
  };
}

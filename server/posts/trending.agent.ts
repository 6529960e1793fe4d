/** Background agent recomputing trending posts and tags. */
import type { Agent } from '../agents/agent-runner.js';
import type { TrendingService } from './trending.service.js';

/** The `trending_refresh` agent. */
export function trendingRefreshAgent(trending: TrendingService, intervalSeconds: number): Agent {
  return {
    name: 'trending_refresh',
    intervalSeconds,
    async run() {
      await trending.refresh();
    },
  };
}

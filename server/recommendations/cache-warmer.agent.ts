/**
 * The `cache_warmer` agent: builds the ranking profiles of the most active recent users
 * before they ask, shortly after start and after each interval (a pool reload clears the
 * profiles). "Most active" is counted over the newest interactions only (a bounded scan of
 * the table's tail, not the whole history), and the number of profiles is bounded well
 * below the profile cache's capacity so that warming never evicts what requests cached.
 */
import type { Agent } from '../platform/agents/agent.types.js';
import { loadProfile, type ProfileSources } from './profile-loader.js';

export interface CacheWarmerOptions {
  intervalSeconds: number;
  /** At most this many profiles per run (default 200, and never over half the profile cache). */
  maxUsers?: number;
  /** How many of the newest interactions are counted (default 20,000). */
  recentInteractions?: number;
}

/** Profiles built between two yields to the event loop. */
const YIELD_EVERY = 10;

/** Pre-builds the busiest users' profiles. */
export function cacheWarmerAgent(sources: ProfileSources, options: CacheWarmerOptions): Agent {
  const maxUsers = Math.min(options.maxUsers ?? 200, Math.floor(sources.state.options.profileCapacity / 2));
  return {
    name: 'cache_warmer',
    description: `builds the ranking profiles of the ${maxUsers} most active recent users`,
    intervalSeconds: options.intervalSeconds,
    initialDelaySeconds: 5,
    // Fills this process's profile cache.
    scope: 'instance',
    async run({ signal }) {
      const users = await sources.interactions.mostActiveRecentUsers(options.recentInteractions ?? 20_000, maxUsers);
      let built = 0;
      for (const userId of users) {
        if (signal.aborted) break;
        if (sources.state.cachedProfile(userId)) continue;
        await loadProfile(sources, userId);
        built += 1;
        // SQLite's reads resolve without leaving the event loop's turn: give requests their turn
        // between profiles rather than holding them for the whole run (200 profiles ~ 60 ms).
        if (built % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      return {
        summary: `warmed ${built} profiles (${users.length - built} already cached) of ${users.length} active users`,
        details: { active_users: users.length, profiles_built: built },
      };
    },
  };
}

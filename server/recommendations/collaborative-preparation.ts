/**
 * What a ranking that weighs the collaborative feature needs before it runs (the hydrate
 * stage of the collaborative signal): the user's most recent posts, read once per cached
 * profile and then kept by each interaction (src/ranking/profile.ts), and the posts
 * co-engaged with them that the candidate pool does not hold, fetched and held beside it
 * (server/ranking-state/collaborative-candidates.ts). A ranking without the weight needs
 * neither, and reads nothing more than before.
 */
import { effectiveWeights, MAX_RECENT_POSTS, type AlgorithmConfig, type UserProfile } from '../../src/ranking/index.js';
import type { StoredPost } from '../ranking-state/ranking-state.events.js';
import type { ProfileSources } from './profile-loader.js';
import type { RankingChoice } from './ranking-policy.types.js';

/** Whether a ranking choice weighs the collaborative feature (an interleaving: either config). */
export function weighsCollaborative(choice: RankingChoice): boolean {
  const configs: readonly AlgorithmConfig[] = choice.interleave ? choice.interleave.configs : [choice.config];
  return configs.some((config) => effectiveWeights(config).collaborative > 0);
}

/** Reads the user's recent posts (once per profile) and fetches the missing collaborative candidates. */
export async function prepareCollaborative(sources: ProfileSources, profile: UserProfile): Promise<void> {
  const { state, interactions } = sources;
  if (profile.recentPosts === undefined) {
    const version = state.userVersion(profile.userId);
    const recent = await interactions.recentPosts(profile.userId, MAX_RECENT_POSTS);
    // A signal applied meanwhile would be missing from them: the next request reads them again.
    if (state.userVersion(profile.userId) !== version) {
      await fetchMissing(sources, recent);
      return;
    }
    profile.recentPosts = recent;
  }
  await fetchMissing(sources, profile.recentPosts);
}

async function fetchMissing(sources: ProfileSources, recentPosts: readonly string[]): Promise<void> {
  const { state, posts } = sources;
  const missing = state.collaborative.missing(recentPosts);
  if (missing.length === 0) return;
  const [rankable, statuses] = await Promise.all([posts.rankablePosts(missing), posts.statusesByIds(missing)]);
  const found: StoredPost[] = [];
  for (const [id, post] of rankable) {
    const visibility = statuses.get(id)?.visibility;
    if (visibility !== undefined) found.push({ ...post, visibility });
  }
  state.collaborative.add(missing, found);
}

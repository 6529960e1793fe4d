/**
 * What a ranking that weighs the collaborative feature needs before it runs (the hydrate
 * stage of the collaborative signal): the user's most recent posts, read once per cached
 * profile and then kept by each interaction (src/ranking/profile.ts), and the posts
 * co-engaged with them that the candidate pool does not hold, fetched and held beside it
 * (server/ranking-state/collaborative-candidates.ts). A ranking without the weight needs
 * neither, and reads nothing more than before.
 */
import {
  collaborativeMatches,
  effectiveWeights,
  MAX_RECENT_POSTS,
  type AlgorithmConfig,
  type CollaborativeMatch,
  type UserProfile,
} from '../../src/ranking/index.js';
import type { ProfileSources } from './profile-loader.js';
import type { RankingChoice } from './ranking-policy.types.js';

/** Whether a ranking choice weighs the collaborative feature (an interleaving: either config). */
export function weighsCollaborative(choice: RankingChoice): boolean {
  const configs: readonly AlgorithmConfig[] = choice.interleave ? choice.interleave.configs : [choice.config];
  return configs.some((config) => effectiveWeights(config).collaborative > 0);
}

/**
 * Reads the user's recent posts (once per profile), fetches the missing collaborative
 * candidates, and returns the user's co-engaged posts for the ranking (computed once per
 * request, whatever the number of configs it ranks with).
 */
export async function prepareCollaborative(
  sources: ProfileSources,
  profile: UserProfile,
): Promise<ReadonlyMap<string, CollaborativeMatch> | undefined> {
  const { state, interactions } = sources;
  if (profile.recentPosts === undefined) {
    const version = state.userVersion(profile.userId);
    const recent = await interactions.recentPosts(profile.userId, MAX_RECENT_POSTS);
    // A signal applied meanwhile would be missing from them: the next request reads them again.
    if (state.userVersion(profile.userId) !== version) return undefined;
    profile.recentPosts = recent;
  }
  const recent = profile.recentPosts;
  if (recent.length === 0) return undefined;
  const matches = collaborativeMatches(state.coEngagement, recent);
  await fetchMissing(sources, recent, matches);
  return matches;
}

async function fetchMissing(
  sources: ProfileSources,
  recentPosts: readonly string[],
  matches: ReadonlyMap<string, CollaborativeMatch>,
): Promise<void> {
  const { state, posts } = sources;
  const missing = state.collaborative.missing(recentPosts, matches);
  if (missing.length === 0) return;
  // The ranking columns and the visibility in one read: rendering every missing post's status to
  // read its visibility cost a collaborative first request ~3.5 ms of its ~17 (bench/README.md,
  // "A feed's recency at its pace", Cost).
  state.collaborative.add(missing, [...(await posts.storedPosts(missing)).values()]);
}

/**
 * The rankers an evaluation compares: candidates ranked by the server's own ranking code
 * (`rankCandidates` over the pool with the user's profile, nothing re-implemented), and
 * the baselines (baselines.ts). Every ranker returns canonical post ids, best first.
 */
import { rankCandidates } from '../ranking/rank.js';
import type { AlgorithmConfig, RankingKnobs } from '../ranking/ranking.types.js';
import { effectiveWeights } from '../ranking/weights.js';
import type { TestUser } from './dataset.js';
import type { EvalState } from './eval-context.js';

export interface Ranker {
  readonly name: string;
  readonly kind: 'candidate' | 'baseline';
  /** A personal baseline (kNN, EASE) has nothing to say about a user without history: it is not reported for them. */
  readonly personal: boolean;
  /** The user's top k at the state's instant (canonical post ids, best first). */
  rank(user: TestUser, k: number): string[];
}

/**
 * A candidate ranking: `algorithm_config` (and knobs: the shipped default's, or none for an
 * experiment variant, as the server ranks each) through the server's ranking code at the user's instant.
 */
export function rankingCandidate(name: string, config: AlgorithmConfig, state: EvalState, knobs: RankingKnobs = {}): Ranker {
  return {
    name,
    kind: 'candidate',
    personal: false,
    rank(user, k) {
      const profile = state.profile(user);
      // As the server prepares such a ranking: the co-engaged posts outside the pool are fetched and held first (once per visit).
      const collaborative = effectiveWeights(config).collaborative > 0 ? state.collaborativeOf(profile) : undefined;
      const items = rankCandidates(state.index, profile, config, {
        ...knobs,
        limit: k,
        nowMs: state.now,
        coEngagement: state.collaborative,
        ...(collaborative === undefined ? {} : { collaborative }),
      });
      return items.map((item) => item.post.reblogOfId ?? item.post.id);
    },
  };
}

/**
 * The experiments' RankingPolicy for the recommendations feature: `choose` asks the
 * runtime (cached enrolments, first assignment recorded once), `served` hands the list
 * to the recorder (impressions and performance of enrolled users).
 */
import type { RankingChoice, RankingPolicy, ServedList } from '../recommendations/ranking-policy.types.js';
import type { ExperimentRuntime } from './experiment-runtime.js';
import type { ServingRecorder } from './serving-recorder.js';

/** The policy that ranks enrolled users with their variant's algorithm_config. */
export function experimentRankingPolicy(runtime: ExperimentRuntime, recorder: ServingRecorder): RankingPolicy {
  return {
    choose: (userId: string): Promise<RankingChoice> => runtime.choose(userId),
    served: (list: ServedList): Promise<void> => recorder.record(list),
  };
}

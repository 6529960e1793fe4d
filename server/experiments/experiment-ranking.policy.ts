/**
 * The experiments' RankingPolicy for the recommendations feature: `choose` asks the
 * runtime (cached enrolments, first assignment recorded once), `served` hands the list
 * to the recorder (impressions and performance of enrolled users). With `interleaving`,
 * a user of an interleaving experiment gets a choice naming both rankers, and the team of
 * each item of their merged list is stored too.
 */
import type { RankingChoice, RankingPolicy, ServedList } from '../recommendations/ranking-policy.types.js';
import type { ExperimentRuntime } from './experiment-runtime.js';
import type { InterleavingServing } from './interleaving/interleaving-serving.js';
import type { ServingRecorder } from './serving-recorder.js';

/** The policy that ranks enrolled users with their variant's algorithm_config (or both, interleaved). */
export function experimentRankingPolicy(
  runtime: Pick<ExperimentRuntime, 'choose'>,
  recorder: Pick<ServingRecorder, 'record'>,
  interleaving?: InterleavingServing,
): RankingPolicy {
  return {
    choose: async (userId: string): Promise<RankingChoice> => {
      const choice = await runtime.choose(userId);
      return interleaving ? interleaving.decorate(userId, choice) : choice;
    },
    served: async (list: ServedList): Promise<void> => {
      await Promise.all([recorder.record(list), interleaving?.record(list)]);
    },
  };
}

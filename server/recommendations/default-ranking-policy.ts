/** The ranking used without experiments: the shipped default weights and knobs, labelled `default`. */
import { DEFAULT_ALGORITHM_CONFIG, SHIPPED_RANKING_OPTIONS } from '../../src/ranking/index.js';
import type { RankingChoice, RankingPolicy } from './ranking-policy.types.js';

const DEFAULT_CHOICE: RankingChoice = { config: DEFAULT_ALGORITHM_CONFIG, options: SHIPPED_RANKING_OPTIONS, algorithm: 'default' };

/** Always the default ranking; observes nothing. */
export const defaultRankingPolicy: RankingPolicy = {
  choose: () => DEFAULT_CHOICE,
  served: () => undefined,
};

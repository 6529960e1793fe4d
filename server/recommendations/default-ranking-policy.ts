/** The ranking used without experiments: the engine's default weights, labelled `default`. */
import { DEFAULT_ALGORITHM_CONFIG } from '../../src/ranking/index.js';
import type { RankingChoice, RankingPolicy } from './ranking-policy.types.js';

const DEFAULT_CHOICE: RankingChoice = { config: DEFAULT_ALGORITHM_CONFIG, algorithm: 'default' };

/** Always the default ranking; observes nothing. */
export const defaultRankingPolicy: RankingPolicy = {
  choose: () => DEFAULT_CHOICE,
  served: () => undefined,
};

/**
 * The ranking fit's interface (docs/ranking.md, "Fitted to the community"): the feature that
 * serves recommendations registers its two agents here — the fit itself, which evaluates and
 * stores a new default, and the one that applies the newest stored default in every process.
 */
import type { Agent } from '../platform/agents/agent.types.js';
import { rankingDefaultAgent, rankingFitAgent, readRankingFitMode, type RankingFitDeps } from './ranking-fit.agent.js';

/** Registers the `ranking_fit` agent every two agent intervals and the default-applying agent every interval. */
export function registerRankingFit(
  agents: { register(agent: Agent): void },
  deps: RankingFitDeps,
  options: { intervalSeconds: number; log: (line: string) => void },
): void {
  const mode = readRankingFitMode();
  agents.register(rankingFitAgent(deps, { mode, intervalSeconds: options.intervalSeconds * 2, log: options.log }));
  agents.register(rankingDefaultAgent(deps, { mode, intervalSeconds: options.intervalSeconds }));
}

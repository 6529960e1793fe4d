/**
 * The periodic item–item model's interface (docs/ranking.md, "The periodic item–item model"):
 * the feature that serves recommendations registers its two agents here — the build, off the
 * serving process, and the load on every instance — and the erasure's deletion of the stored model.
 */
import type { Agent } from '../platform/agents/agent.types.js';
import type { RankingState } from './ranking-state.service.js';
import {
  itemModelAgent,
  itemModelLoadAgent,
  readItemModelSettings,
  type ItemModelDeps,
  type ItemModelSettings,
} from './item-model.agent.js';
import { dropItemModels } from './item-model.repository.js';

/**
 * Registers both agents (none with RECSVC_ITEM_MODEL_POSTS=0) and attaches the erasure's deletion
 * of the stored model. Returns the names of the agents an import's trigger should run (the build).
 */
export function registerItemModel(
  agents: { register(agent: Agent): void },
  deps: ItemModelDeps & { readonly state: Pick<RankingState, 'attachItemModelDropper'> },
  options: { intervalSeconds: number; settings?: ItemModelSettings; workerScript?: URL | null; log?: (line: string) => void },
): string[] {
  const settings = options.settings ?? readItemModelSettings();
  deps.state.attachItemModelDropper(() => dropItemModels(deps.db));
  if (settings.posts === 0) return [];
  const build = itemModelAgent(deps, settings, { log: options.log, workerScript: options.workerScript });
  agents.register(build);
  agents.register(itemModelLoadAgent(deps, { intervalSeconds: options.intervalSeconds }));
  return [build.name];
}

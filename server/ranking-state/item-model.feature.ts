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

/** Registers both agents (none with RECSVC_ITEM_MODEL_POSTS=0) and attaches the erasure's deletion of the stored model. */
export function registerItemModel(
  agents: { register(agent: Agent): void },
  deps: ItemModelDeps & { readonly state: Pick<RankingState, 'attachItemModelDropper'> },
  options: { intervalSeconds: number; settings?: ItemModelSettings; workerScript?: URL | null; log?: (line: string) => void },
): void {
  const settings = options.settings ?? readItemModelSettings();
  deps.state.attachItemModelDropper(() => dropItemModels(deps.db));
  if (settings.posts === 0) return;
  agents.register(itemModelAgent(deps, settings, { log: options.log, workerScript: options.workerScript }));
  agents.register(itemModelLoadAgent(deps, { intervalSeconds: options.intervalSeconds }));
}

/**
 * The `experiment_gates` agent: evaluates the performance gates of every ACTIVE
 * experiment and blocks each treatment variant that fails one (its users are then
 * served the control's ranking, and still counted in their variant). The control is
 * never blocked: its users already get the control ranking. Inconclusive gates and a
 * sample ratio mismatch (not a variant's fault) block nothing.
 */
import type { Agent } from '../agents/agent-runner.js';
import type { ExperimentResultsService } from './experiment-results.service.js';
import type { ExperimentService } from './experiment.service.js';
import type { ExperimentRuntime } from './experiment-runtime.js';
import { blockVariant } from './experiment.repository.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';

export interface GatesAgentDeps {
  db: Kysely<Database>;
  experiments: ExperimentService;
  results: ExperimentResultsService;
  runtime: ExperimentRuntime;
  now: () => number;
}

/** Evaluates the gates of ACTIVE experiments once; returns the variants it blocked now. */
export async function enforceGates(deps: GatesAgentDeps): Promise<{ experimentId: number; variant: string }[]> {
  const blocked: { experimentId: number; variant: string }[] = [];
  for (const experiment of await deps.experiments.list('ACTIVE')) {
    const report = await deps.results.gates(experiment);
    for (const variant of report.variants) {
      if (variant.is_control || variant.blocked || variant.verdict !== 'fail') continue;
      const failing = variant.gates
        .filter((g) => g.verdict === 'fail')
        .map((g) => `${g.gate}: ${g.value} vs ${g.comparator} ${g.threshold}`);
      const at = new Date(deps.now()).toISOString();
      if (await blockVariant(deps.db, experiment.id, variant.name, `failed ${failing.join('; ')}`, at)) {
        blocked.push({ experimentId: experiment.id, variant: variant.name });
      }
    }
  }
  if (blocked.length > 0) deps.runtime.invalidate();
  return blocked;
}

/** The periodic agent around enforceGates. */
export function gatesAgent(deps: GatesAgentDeps, intervalSeconds: number): Agent {
  return {
    name: 'experiment_gates',
    intervalSeconds,
    async run() {
      await enforceGates(deps);
    },
  };
}

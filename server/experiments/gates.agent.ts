/**
 * The `experiment_gates` agent: evaluates the performance gates of every ACTIVE
 * experiment and blocks each treatment variant that fails one (its users are then
 * served the control's ranking, and still counted in their variant). The control is
 * never blocked: its users already get the control ranking. Inconclusive gates — too few
 * users, no data, or (the bounds rule) an interval that still spans the threshold — and a
 * sample ratio mismatch (not a variant's fault) block nothing.
 *
 * Each experiment is judged by its own stored `gate_rule` (bounds unless created with point).
 * It re-checks every interval (60 s by default) and a block is permanent, so what it reads must
 * stay valid under repeated looks: with the bounds rule and the experiment's sequential method
 * the intervals are confidence sequences (gate-intervals.ts), and a variant whose true figure
 * clears the threshold is blocked with probability at most γ/2 per gate however often it looks.
 * A decisive failure — the always-valid (sequential) interval wholly on the wrong side — fails
 * a gate before minimum_sample_size users, whatever the experiment's method, so a broken
 * variant does not keep its traffic until the minimum; that early block has the same γ/2 bound
 * (gates.ts, docs/statistics.md). A pass always waits for the minimum, and no gate decides on
 * fewer than MINIMUM_METRIC_UNITS of its own units (impressions, answers, requests).
 * Each variant's verdict is logged when it changes (not every minute), and a block records
 * the failing gates with their intervals as the variant's blocked_reason.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { ExperimentGates } from '../../src/experiments/gates/experiment-gates.schema.js';
import { formatInterval } from '../../src/experiments/gates/gate-explain.js';
import type { GateVerdict } from '../../src/experiments/gates/gates.js';
import type { Agent } from '../platform/agents/agent-runner.js';
import type { Database } from '../platform/db/database.js';
import { blockVariant } from './experiment.repository.js';
import type { ExperimentResultsService } from './experiment-results.service.js';
import type { ExperimentRuntime } from './experiment-runtime.js';
import type { ExperimentService } from './experiment.service.js';

export interface GatesAgentDeps {
  db: Kysely<Database>;
  experiments: ExperimentService;
  results: ExperimentResultsService;
  runtime: ExperimentRuntime;
  now: () => number;
  /** Where verdict changes and blocks are logged (the server's logger); none: silent. */
  log?: Pick<FastifyBaseLogger, 'info' | 'warn'> | undefined;
}

type ServedGateResult = ExperimentGates['variants'][number]['gates'][number];

/** One variant's verdict at one check. */
export interface VariantVerdict {
  experimentId: number;
  variant: string;
  verdict: GateVerdict;
  blocked: boolean;
}

export interface GatesCheckOutcome {
  /** The variants blocked by this check. */
  blocked: { experimentId: number; variant: string }[];
  /** Every treatment's verdict at this check. */
  verdicts: VariantVerdict[];
}

/** "min_click_through_rate: 0.031 [0.024, 0.038] vs >= 0.05" (the interval when the bounds rule judged one). */
export function describeGateResult(result: ServedGateResult): string {
  const interval = result.ci_low !== undefined || result.ci_high !== undefined ? ` ${formatInterval(result.ci_low, result.ci_high)}` : '';
  return `${result.gate}: ${result.value}${interval} vs ${result.comparator} ${result.threshold}`;
}

/** Evaluates the gates of ACTIVE experiments once; blocks treatments that fail (never on inconclusive). */
export async function enforceGates(deps: GatesAgentDeps, previous?: Map<string, GateVerdict>): Promise<GatesCheckOutcome> {
  const outcome: GatesCheckOutcome = { blocked: [], verdicts: [] };
  for (const experiment of await deps.experiments.list('ACTIVE')) {
    const report = await deps.results.gates(experiment);
    for (const variant of report.variants) {
      if (variant.is_control) continue;
      const key = `${experiment.id}/${variant.name}`;
      if (previous !== undefined && previous.get(key) !== variant.verdict) {
        deps.log?.info({ experiment: experiment.id, variant: variant.name, verdict: variant.verdict, rule: report.rule }, 'gate verdict');
        previous.set(key, variant.verdict);
      }
      let blocked = variant.blocked;
      if (!variant.blocked && variant.verdict === 'fail') {
        const failing = variant.gates.filter((g) => g.verdict === 'fail').map(describeGateResult);
        const at = new Date(deps.now()).toISOString();
        if (await blockVariant(deps.db, experiment.id, variant.name, `failed ${failing.join('; ')}`, at)) {
          outcome.blocked.push({ experimentId: experiment.id, variant: variant.name });
          deps.log?.warn({ experiment: experiment.id, variant: variant.name, failing }, 'variant blocked by a failing gate');
          blocked = true;
        }
      }
      outcome.verdicts.push({ experimentId: experiment.id, variant: variant.name, verdict: variant.verdict, blocked });
    }
  }
  if (outcome.blocked.length > 0) deps.runtime.invalidate();
  return outcome;
}

/** The periodic agent around enforceGates; it remembers each variant's last verdict to log only changes. */
export function gatesAgent(deps: GatesAgentDeps, intervalSeconds: number): Agent {
  const lastVerdicts = new Map<string, GateVerdict>();
  return {
    name: 'experiment_gates',
    description: 'checks the gates of active experiments and blocks treatments that fail one',
    intervalSeconds,
    // Blocks variants in the shared database.
    scope: 'cluster',
    async run() {
      const outcome = await enforceGates(deps, lastVerdicts);
      const failing = outcome.verdicts.filter((v) => v.verdict === 'fail').length;
      return {
        summary: `checked ${outcome.verdicts.length} treatment variants: ${failing} failing, ${outcome.blocked.length} newly blocked`,
        details: { variants_checked: outcome.verdicts.length, failing, blocked: outcome.blocked.length },
      };
    },
  };
}

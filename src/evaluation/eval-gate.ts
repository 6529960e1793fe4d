/**
 * `recsvc eval --gate`: every candidate must be at least as good as every baseline, on the
 * primary metric, for users with history and for users without (each group judged apart).
 * A comparison is the paired difference d = candidate − baseline with its bootstrap interval,
 * judged like the gates' bounds rule against −margin: pass when ci_low ≥ −margin, fail when
 * ci_high < −margin, inconclusive while the interval spans it or the group has fewer than
 * `minUsers` users. A group without any user is left out. The verdict: fail if any comparison
 * fails, else inconclusive if any is (or nothing could be compared), else pass.
 */
import type { GateVerdict } from '../experiments/gates/gates.js';
import type { Evaluation, UserGroup } from './evaluate.js';
import type { EvalMetricName } from './metrics.js';

export interface EvalGateOptions {
  /** How much worse than a baseline still passes (default 0: at least as good). */
  readonly margin: number;
  /** Fewer users in a group make its comparisons inconclusive (default 30). */
  readonly minUsers: number;
  readonly metric: EvalMetricName;
}

export const DEFAULT_EVAL_GATE_OPTIONS: EvalGateOptions = { margin: 0, minUsers: 30, metric: 'ndcg' };

export interface EvalGateCase {
  readonly candidate: string;
  readonly group: UserGroup;
  readonly baseline: string;
  readonly users: number;
  readonly difference: number;
  readonly ci_low: number;
  readonly ci_high: number;
  readonly verdict: GateVerdict;
  readonly reason?: 'underpowered' | 'interval spans threshold';
}

export interface EvalGate {
  readonly verdict: GateVerdict;
  readonly metric: EvalMetricName;
  readonly margin: number;
  readonly min_users: number;
  readonly cases: readonly EvalGateCase[];
}

/** Judges every candidate against every baseline reported in each group. */
export function evalGate(evaluation: Evaluation, options: Partial<EvalGateOptions> = {}): EvalGate {
  const o = { ...DEFAULT_EVAL_GATE_OPTIONS, ...options };
  const cases: EvalGateCase[] = [];
  for (const group of evaluation.groups) {
    if (group.group === 'all' || group.users === 0) continue;
    const baselines = new Set(group.rankers.filter((r) => r.kind === 'baseline').map((r) => r.name));
    for (const c of group.comparisons) {
      if (c.metric !== o.metric || !baselines.has(c.against)) continue;
      const base = {
        candidate: c.candidate,
        group: group.group,
        baseline: c.against,
        users: group.users,
        difference: c.value,
        ci_low: c.ci_low,
        ci_high: c.ci_high,
      };
      if (group.users < o.minUsers) cases.push({ ...base, verdict: 'inconclusive', reason: 'underpowered' });
      else if (c.ci_low >= -o.margin) cases.push({ ...base, verdict: 'pass' });
      else if (c.ci_high < -o.margin) cases.push({ ...base, verdict: 'fail' });
      else cases.push({ ...base, verdict: 'inconclusive', reason: 'interval spans threshold' });
    }
  }
  const verdict: GateVerdict = cases.some((c) => c.verdict === 'fail')
    ? 'fail'
    : cases.length === 0 || cases.some((c) => c.verdict === 'inconclusive')
      ? 'inconclusive'
      : 'pass';
  return { verdict, metric: o.metric, margin: o.margin, min_users: o.minUsers, cases };
}

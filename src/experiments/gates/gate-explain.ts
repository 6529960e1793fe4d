/**
 * A gate result in words, for tables, JUnit messages and the agent's log: what was judged
 * (the value, or under the bounds rule its interval) against what, and why it is undecided.
 */
import { GATE_DEFINITIONS, type GateResult } from './gates.js';

/** "[0.0479, 0.0519]"; an unbounded end is ∞ (p95 beyond the last histogram bucket). */
export function formatInterval(low: number | null | undefined, high: number | null | undefined): string {
  const end = (x: number | null | undefined) => (x === null || x === undefined ? '∞' : String(x));
  return `[${end(low)}, ${end(high)}]`;
}

/**
 * Why a gate result is what it is:
 * - point: "click_through_rate 0.0499 is below the minimum 0.05";
 * - bounds: "click_through_rate 0.0499, interval [0.0479, 0.0519], spans the minimum 0.05"
 *   (or "is below" / "is within" when the whole interval is);
 * - "no data for …", "…, but too few users to decide", "…, but no interval for it yet".
 */
export function explainGateResult(result: GateResult): string {
  const figure = GATE_DEFINITIONS[result.gate].value;
  if (result.reason === 'no data') return `no data for ${figure}`;
  const bound = result.comparator === '>=' ? 'minimum' : 'maximum';
  const wrongSide = result.comparator === '>=' ? 'is below' : 'is above';
  const hasInterval = result.rule === 'bounds' && (result.ci_low !== undefined || result.ci_high !== undefined);
  const judged = hasInterval
    ? `${figure} ${result.value}, interval ${formatInterval(result.ci_low, result.ci_high)},`
    : `${figure} ${result.value}`;
  const relation =
    result.reason === 'interval spans threshold'
      ? 'spans'
      : result.verdict === 'fail'
        ? wrongSide
        : result.verdict === 'pass'
          ? 'is within'
          : null;
  const shown =
    relation === null
      ? `${figure} ${result.value} vs the ${bound} ${result.threshold}`
      : `${judged} ${relation} the ${bound} ${result.threshold}`;
  if (result.reason === 'underpowered') return `${shown}, but too few users to decide`;
  if (result.reason === 'no interval') return `${shown}, but no interval for it yet`;
  if (result.reason === 'too few units')
    return `${shown}, but only ${result.units ?? 0} of its units (answers, impressions, requests) so far`;
  if (result.early === true) return `${shown} already, before the minimum (a decisive failure)`;
  return shown;
}

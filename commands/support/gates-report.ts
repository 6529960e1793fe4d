/** The result of `gates check`, grouped per variant, the same whether the data came from the server or a file. */
import type { GateName, GateResult, GateVerdict } from '../../src/experiments/gates/gates.js';
import type { SrmResult } from '../../src/experiments/stats/srm.js';
import { EXIT, type ExitCode } from '../../src/exit-codes.js';

export interface GatesReport {
  experiment_id: number | string | null;
  source: string;
  verdict: GateVerdict;
  exit_code: ExitCode;
  srm: SrmResult;
  thresholds: Record<GateName, number>;
  minimum_sample_size: number;
  variants: Array<{ name: string; is_control: boolean; users: number; verdict: GateVerdict; gates: GateResult[] }>;
}

/** decisions.md: 0 all pass; 1 any failure or SRM (wins over inconclusive); 4 inconclusive unless allowed. */
export function exitCodeFor(verdict: GateVerdict, allowInconclusive: boolean): ExitCode {
  if (verdict === 'fail') return EXIT.gateFailed;
  if (verdict === 'inconclusive' && !allowInconclusive) return EXIT.inconclusive;
  return EXIT.ok;
}

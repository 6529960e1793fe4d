/** What `recsvc experiment create` takes: its flags, shared by the action, the prompts and the role flags. */
import type { ExperimentType } from '../../src/experiments/interleaving/experiment-type.js';
import type { DefinitionFlags } from '../support/experiment-input.js';
import type { ServerFlags } from '../support/server-options.js';
import type { MethodFlags } from './analyze-method.js';

export interface CreateOptions extends ServerFlags, DefinitionFlags, MethodFlags {
  file?: string;
  /** ab (default) or interleaving. */
  type?: ExperimentType;
  interactive?: boolean;
  json?: boolean;
  /** With `mde`: warn when the minimum sample size is below what `experiment plan` needs. */
  baseline?: number;
  mde?: number;
  perUser?: number;
  /** With --baseline/--mde, the spread the warning's plan assumes (plan-variance.ts). */
  pilot?: string;
  sd?: number;
  binomial?: boolean;
  /** Same as --metric (name or alias such as ctr). */
  primaryMetric?: string;
  /** Guardrail metrics, comma-separated or repeated; `none` for no guardrails. */
  guardrail?: string[];
  gateRule?: string;
}

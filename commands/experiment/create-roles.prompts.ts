/**
 * The interactive `experiment create`'s questions about how the experiment decides: the
 * primary metric, the guardrails (never the primary), the gate rule and the analysis method,
 * with the same choices and defaults as --primary-metric/--metric, --guardrail, --gate-rule and
 * --method (a flag given becomes the question's default), and the prompt functions behind an
 * interface so the flow can be driven with scripted answers.
 */
import { checkbox, confirm, input, select } from '@inquirer/prompts';
import type { ExperimentCreate } from '../../src/experiments/experiment.schema.js';
import { DEFAULT_GATE_RULE, GATE_RULES, type GateRule } from '../../src/experiments/gates/gates.js';
import {
  DEFAULT_GUARDRAIL_METRICS,
  DEFAULT_PRIMARY_METRIC,
  METRIC_NAMES,
  resolveMetricName,
  type MetricName,
} from '../../src/experiments/metrics.js';
import { ANALYSIS_METHODS, DEFAULT_ANALYSIS_METHOD, type AnalysisMethod } from '../../src/experiments/stats/sequential.js';
import { methodDescription } from './analyze-method.view.js';
import { withRoleFlags } from './create-roles.js';
import type { CreateOptions } from './create.options.js';

/** A choice of a select or checkbox question. */
export interface PromptChoice<T extends string> {
  name: string;
  value: T;
  description?: string;
  checked?: boolean;
}

/** The four kinds of question the flow asks (@inquirer/prompts by default). */
export interface Prompts {
  input: (config: { message: string; default?: string; validate?: (value: string) => true | string }) => Promise<string>;
  select: <T extends string>(config: { message: string; choices: PromptChoice<T>[]; default?: T }) => Promise<T>;
  checkbox: <T extends string>(config: { message: string; choices: PromptChoice<T>[] }) => Promise<T[]>;
  confirm: (config: { message: string; default?: boolean }) => Promise<boolean>;
}

/** The terminal's prompts. */
export const INQUIRER_PROMPTS: Prompts = {
  input: (config) => input(config),
  select: (config) => select(config),
  checkbox: (config) => checkbox(config),
  confirm: (config) => confirm(config),
};

/** The answers about roles, method and gate rule. */
export type RoleAnswers = Required<Pick<ExperimentCreate, 'primary_metric' | 'guardrail_metrics' | 'gate_rule' | 'analysis_method'>>;

const GATE_RULE_HELP: Record<GateRule, string> = {
  bounds: 'a gate passes only when the whole interval clears its threshold',
  point: "the spec's rule: the value alone is compared with the threshold",
};

/** What the role questions offer first: the flags' values (resolved as withRoleFlags does), else the server's defaults. */
export interface RoleDefaults {
  primary: MetricName;
  /** undefined: the server's default guardrails (never the primary). */
  guardrails: readonly MetricName[] | undefined;
  gateRule: GateRule;
  method: AnalysisMethod;
}

/**
 * The role questions' defaults from --primary-metric/--metric, --guardrail, --gate-rule and
 * --method: an unknown name is the same usage error (exit 2) as without prompts, raised before
 * the first question.
 */
export function roleDefaults(options: CreateOptions): RoleDefaults {
  const fromMetricFlag = options.metric === undefined ? undefined : resolveMetricName(options.metric);
  const flags = withRoleFlags(
    { name: '', variants: [], ...(fromMetricFlag === undefined ? {} : { primary_metric: fromMetricFlag }) },
    options,
  );
  return {
    primary: flags.primary_metric ?? DEFAULT_PRIMARY_METRIC,
    guardrails: flags.guardrail_metrics,
    gateRule: flags.gate_rule ?? DEFAULT_GATE_RULE,
    method: options.method ?? DEFAULT_ANALYSIS_METHOD,
  };
}

/** Asks for the primary metric, the guardrails (every metric but the primary), the gate rule and the analysis method. */
export async function promptRoles(defaults: RoleDefaults, prompts: Prompts): Promise<RoleAnswers> {
  const primary = await prompts.select<MetricName>({
    message: 'Primary metric (the decision is drawn from it alone)',
    choices: METRIC_NAMES.map((m) => ({ name: m, value: m })),
    default: defaults.primary,
  });
  const checked = defaults.guardrails ?? DEFAULT_GUARDRAIL_METRICS;
  const guardrails = await prompts.checkbox<MetricName>({
    message: 'Guardrail metrics (tested one-sided for harm; none selected: no guardrails)',
    choices: METRIC_NAMES.filter((m) => m !== primary).map((m) => ({ name: m, value: m, checked: checked.includes(m) })),
  });
  const gateRule = await prompts.select<GateRule>({
    message: 'Gate rule',
    choices: GATE_RULES.map((rule) => ({ name: rule, value: rule, description: GATE_RULE_HELP[rule] })),
    default: defaults.gateRule,
  });
  const method = await prompts.select<AnalysisMethod>({
    message: 'Analysis method',
    choices: ANALYSIS_METHODS.map((m) => ({ name: m, value: m, description: methodDescription(m) })),
    default: defaults.method,
  });
  return { primary_metric: primary, guardrail_metrics: guardrails, gate_rule: gateRule, analysis_method: method };
}

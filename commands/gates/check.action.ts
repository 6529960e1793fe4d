/**
 * The work behind `recsvc gates check`: evaluateGates on server or file data by the chosen rule
 * (--rule, else the experiment's stored gate_rule, else bounds), then exit code, table, JSON, JUnit.
 */
import type { GateThresholds } from '../../src/experiments/experiment.schema.js';
import { gateInputOptionsFor, gateInputsFromData } from '../../src/experiments/gates/gate-inputs.js';
import {
  DEFAULT_GATE_RULE,
  GATE_DEFINITIONS,
  GATE_NAMES,
  GATE_RULES,
  GATE_SHORT_NAMES,
  evaluateGates,
  isGateRule,
  resolveGateName,
  resolveThresholds,
  variantGates,
  type GateEvaluation,
  type GateName,
  type GateRule,
  type GateThresholdOverrides,
  type GateVariantInput,
} from '../../src/experiments/gates/gates.js';
import { sampleRatioMismatch, type SrmResult } from '../../src/experiments/stats/srm.js';
import { usageError } from '../support/cli-error.js';
import { exitCodeFor, type GatesReport } from '../support/gates-report.js';
import { renderGates } from '../support/gates-view.js';
import { printJson, printLine } from '../support/output.js';
import type { OfflineFlags } from '../support/offline-data.js';
import type { ServerFlags } from '../support/server-options.js';

export interface GatesCheckOptions extends ServerFlags, Partial<OfflineFlags> {
  maxP95?: number;
  minCtr?: number;
  maxErrorRate?: number;
  minSatisfaction?: number;
  only?: string;
  rule?: string;
  allowInconclusive?: boolean;
  junit?: string;
  summaryMd?: string;
  json?: boolean;
}

/** Evaluates, reports, and sets the exit code (0/1/4; 2 and 3 are thrown). */
export async function runGatesCheck(id: number | undefined, options: GatesCheckOptions): Promise<void> {
  const only = parseOnly(options.only);
  const overrides = overridesFromFlags(options);
  const judging: Judging = { only, overrides, rule: parseRule(options.rule) };
  const report = options.file !== undefined ? await offline(id, options, judging) : await online(id, options, judging);
  if (options.junit !== undefined) {
    const { writeJunit } = await import('../support/junit.js');
    await writeJunit(options.junit, report);
  }
  if (options.summaryMd !== undefined) await (await import('./summary-md.js')).appendSummaryMd(options.summaryMd, report);
  if (options.json) printJson(report);
  else printLine(renderGates(report, options.allowInconclusive === true));
  process.exitCode = report.exit_code;
}

/** What the flags say about judging: which gates, which thresholds, which rule (undefined: the experiment's stored gate_rule). */
interface Judging {
  only: GateName[] | undefined;
  overrides: GateThresholds;
  rule: GateRule | undefined;
}

interface Design {
  variants: readonly { name: string; is_control: boolean }[];
  minimumSampleSize: number;
  thresholds: GateThresholds | undefined;
}

function buildReport(
  evaluation: GateEvaluation,
  design: Design,
  srm: SrmResult,
  meta: { id: number | string | null; source: string },
  options: GatesCheckOptions,
  judging: Judging,
  inputs: GateVariantInput[],
): GatesReport {
  return {
    experiment_id: meta.id,
    source: meta.source,
    verdict: evaluation.verdict,
    exit_code: exitCodeFor(evaluation.verdict, options.allowInconclusive === true),
    srm,
    thresholds: resolveThresholds({ ...design.thresholds, ...judging.overrides }),
    minimum_sample_size: design.minimumSampleSize,
    variants: design.variants.map((variant) => {
      const { verdict, results } = variantGates(evaluation, variant.name);
      const users = inputs.find((input) => input.name === variant.name)?.users ?? 0;
      return { name: variant.name, is_control: variant.is_control, users, verdict, gates: results };
    }),
  };
}

/** File data: the intervals from the design's confidence level, minimum and recorded method (a CSV: fixed). */
async function offline(id: number | undefined, options: GatesCheckOptions, judging: Judging): Promise<GatesReport> {
  if (id !== undefined) throw usageError('give an experiment id (server) or --file (offline), not both');
  const { loadOfflineData } = await import('../support/offline-data.js');
  const data = await loadOfflineData({ ...options, file: options.file as string });
  const names = data.design.variants.map((v) => v.name);
  const inputs = gateInputsFromData(names, data.accumulators, data.performance, gateInputOptionsFor(data.design));
  const srm = sampleRatioMismatch(
    inputs.map((input) => input.users),
    data.design.variants.map((v) => v.traffic_allocation),
  );
  const design: Design = {
    variants: data.design.variants,
    minimumSampleSize: data.design.minimum_sample_size,
    thresholds: data.design.gates,
  };
  // Without --rule: the export's recorded gate_rule (a CSV, or an export from before it: bounds).
  const stored = (data.design as { gate_rule?: unknown }).gate_rule;
  const evaluation = judge(inputs, design, srm, { ...judging, rule: judging.rule ?? (isGateRule(stored) ? stored : DEFAULT_GATE_RULE) });
  return buildReport(evaluation, design, srm, { id: data.design.id ?? null, source: data.file }, options, judging, inputs);
}

function judge(inputs: GateVariantInput[], design: Design, srm: { mismatch: boolean }, judging: Judging): GateEvaluation {
  return evaluateGates({
    variants: inputs,
    minimumSampleSize: design.minimumSampleSize,
    thresholds: { ...design.thresholds, ...judging.overrides },
    srm,
    rule: judging.rule,
    ...(judging.only ? { only: judging.only } : {}),
  });
}

/**
 * The server evaluates with the experiment's thresholds; its per-gate values and intervals are
 * re-judged here so flags can override thresholds, select gates and choose the rule.
 */
async function online(id: number | undefined, options: GatesCheckOptions, judging: Judging): Promise<GatesReport> {
  if (id === undefined) throw usageError('give an experiment id (read from the server) or --file F (offline)');
  // The response's schema (TypeBox) is loaded here, not at start: `gates check --file` never needs it.
  const [{ ApiClient }, { ExperimentGatesSchema }] = await Promise.all([
    import('../support/api-client.js'),
    import('../../src/experiments/gates/experiment-gates.schema.js'),
  ]);
  const client = new ApiClient(options);
  // --rule asks the server for that rule's figures (the bounds rule's intervals even when the experiment stores point).
  const query = judging.rule === undefined ? '' : `?rule=${judging.rule}`;
  const served = await client.get(`${ApiClient.experimentsPath(id, 'gates')}${query}`, ExperimentGatesSchema);
  const inputs: GateVariantInput[] = served.variants.map((variant) => {
    const input: GateVariantInput = { name: variant.name, users: variant.users, intervals: {} };
    for (const result of variant.gates) {
      const gate = resolveGateName(result.gate);
      if (gate === undefined) continue;
      const figure = GATE_DEFINITIONS[gate].value;
      input[figure] = result.value;
      const served = result.ci_low !== undefined && result.ci_high !== undefined;
      const interval = served ? { low: result.ci_low ?? null, high: result.ci_high ?? null } : null;
      // A decisive failure before the minimum is served with its always-valid interval; re-judged as such.
      if (result.early === true) (input.early_intervals ??= {})[figure] = interval;
      else (input.intervals ?? {})[figure] = interval;
      if (result.units !== undefined) (input.units ??= {})[figure] = result.units;
    }
    return input;
  });
  const design: Design = { variants: served.variants, minimumSampleSize: served.minimum_sample_size, thresholds: served.thresholds };
  // Without --rule: the rule the server judged by, which is the experiment's stored gate_rule.
  const evaluation = judge(inputs, design, served.srm, { ...judging, rule: judging.rule ?? served.rule });
  return buildReport(evaluation, design, served.srm, { id, source: client.baseUrl }, options, judging, inputs);
}

function parseRule(text: string | undefined): GateRule | undefined {
  if (text === undefined) return undefined;
  if (!isGateRule(text)) throw usageError(`--rule: expected ${GATE_RULES.join(' or ')} (got "${text}")`);
  return text;
}

function parseOnly(text: string | undefined): GateName[] | undefined {
  if (text === undefined) return undefined;
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const gates = names.map((name) => {
    const gate = resolveGateName(name);
    if (gate === undefined)
      throw usageError(`--only: unknown gate "${name}" (expected ${Object.keys(GATE_SHORT_NAMES).join(', ')} or ${GATE_NAMES.join(', ')})`);
    return gate;
  });
  if (gates.length === 0) throw usageError('--only: name at least one gate');
  return [...new Set(gates)];
}

function overridesFromFlags(options: GatesCheckOptions): GateThresholds {
  const rate = (value: number | undefined, flag: string): number | undefined => {
    if (value !== undefined && (value < 0 || value > 1)) throw usageError(`${flag}: a rate between 0 and 1 (got ${value})`);
    return value;
  };
  if (options.maxP95 !== undefined && options.maxP95 <= 0)
    throw usageError(`--max-p95: a positive number of milliseconds (got ${options.maxP95})`);
  const overrides: GateThresholdOverrides = {
    max_response_time_p95: options.maxP95,
    min_click_through_rate: rate(options.minCtr, '--min-ctr'),
    max_error_rate: rate(options.maxErrorRate, '--max-error-rate'),
    min_user_satisfaction: rate(options.minSatisfaction, '--min-satisfaction'),
  };
  return Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
}

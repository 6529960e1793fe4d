/**
 * Defaults of an experiment's optional settings: the creation schema documents them, the
 * server applies them at creation, and the offline commands apply them to a CSV's design.
 * Kept free of imports so command registration (every CLI start) can show them in help.
 */
export const EXPERIMENT_DEFAULTS = {
  /** Every user is enrolled. */
  traffic_percentage: 100,
  /** Users per variant below which results are underpowered and gates inconclusive. */
  minimum_sample_size: 1000,
  confidence_level: 0.95,
} as const;

/** The spec's performance gates: p95 ≤ 200 ms, CTR ≥ 0.05, error rate ≤ 0.01, satisfaction ≥ 0.6; an experiment's `gates` override them. */
export const DEFAULT_GATE_THRESHOLDS = {
  max_response_time_p95: 200,
  min_click_through_rate: 0.05,
  max_error_rate: 0.01,
  min_user_satisfaction: 0.6,
};

/** How a gate is judged: on the figure's interval (default) or its point value (the spec's rule). */
export const GATE_RULES = ['bounds', 'point'] as const;
export type GateRule = (typeof GATE_RULES)[number];
export const DEFAULT_GATE_RULE: GateRule = 'bounds';

export function isGateRule(value: unknown): value is GateRule {
  return typeof value === 'string' && (GATE_RULES as readonly string[]).includes(value);
}

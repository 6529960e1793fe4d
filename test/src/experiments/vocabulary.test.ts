/**
 * One definition per concept: the wire schemas are built from the domain's vocabularies
 * and defaults, so they cannot drift apart; and one rule combines gate verdicts for the
 * server's report, the CLI's report and the overall verdict.
 */
import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { DEFAULT_GATE_THRESHOLDS, EXPERIMENT_DEFAULTS } from '../../../src/experiments/experiment-defaults.js';
import { GateResultSchema } from '../../../src/experiments/gates/experiment-gates.schema.js';
import { ExperimentStatusNameSchema } from '../../../src/experiments/experiment-response.schema.js';
import { ExperimentCreateSchema, GateThresholdsSchema, MetricNameSchema } from '../../../src/experiments/experiment.schema.js';
import {
  COMPARATORS,
  GATE_VERDICTS,
  INCONCLUSIVE_REASONS,
  combineVerdicts,
  evaluateGates,
  resolveThresholds,
  variantGates,
} from '../../../src/experiments/gates/gates.js';
import { DEFAULT_PRIMARY_METRIC, METRIC_NAMES } from '../../../src/experiments/metrics.js';
import { EXPERIMENT_STATUSES } from '../../../src/experiments/state-machine.js';

const literals = (schema: { anyOf: { const: unknown }[] }): unknown[] => schema.anyOf.map((member) => member.const);

describe('schemas speak the domain vocabulary', () => {
  it('statuses, metric names, verdicts, comparators and reasons come from their const arrays', () => {
    expect(literals(ExperimentStatusNameSchema)).toEqual([...EXPERIMENT_STATUSES]);
    expect(literals(MetricNameSchema)).toEqual([...METRIC_NAMES]);
    expect(literals(GateResultSchema.properties.verdict)).toEqual([...GATE_VERDICTS]);
    expect(literals(GateResultSchema.properties.comparator)).toEqual([...COMPARATORS]);
    expect(literals(GateResultSchema.properties.reason)).toEqual([...INCONCLUSIVE_REASONS]);
    expect(Value.Check(ExperimentStatusNameSchema, 'ARCHIVED')).toBe(false);
  });

  it('documented defaults are the ones applied', () => {
    const props = ExperimentCreateSchema.properties;
    expect(props.traffic_percentage.default).toBe(EXPERIMENT_DEFAULTS.traffic_percentage);
    expect(props.minimum_sample_size.default).toBe(EXPERIMENT_DEFAULTS.minimum_sample_size);
    expect(props.confidence_level.default).toBe(EXPERIMENT_DEFAULTS.confidence_level);
    expect(MetricNameSchema.default).toBe(DEFAULT_PRIMARY_METRIC);
    const gates = GateThresholdsSchema.properties;
    expect(Object.fromEntries(Object.entries(gates).map(([key, schema]) => [key, schema.default]))).toEqual(DEFAULT_GATE_THRESHOLDS);
    expect(resolveThresholds()).toEqual(DEFAULT_GATE_THRESHOLDS);
  });
});

describe('combining gate verdicts', () => {
  it('fail beats inconclusive beats pass; none at all passes', () => {
    expect(combineVerdicts(['pass', 'inconclusive', 'fail'])).toBe('fail');
    expect(combineVerdicts(['pass', 'inconclusive'])).toBe('inconclusive');
    expect(combineVerdicts(['pass', 'pass'])).toBe('pass');
    expect(combineVerdicts([])).toBe('pass');
  });

  it('gives each variant its own results and verdict, while SRM fails only the overall verdict', () => {
    const evaluation = evaluateGates({
      variants: [
        { name: 'control', users: 50, click_through_rate: 0.2, user_satisfaction: 0.9, response_time_p95: 10, error_rate: 0 },
        { name: 'slow', users: 50, click_through_rate: 0.2, user_satisfaction: 0.9, response_time_p95: 900, error_rate: 0 },
        { name: 'new', users: 5, click_through_rate: 0.2, user_satisfaction: 0.9, response_time_p95: 10, error_rate: 0 },
      ],
      minimumSampleSize: 10,
      srm: { mismatch: true },
      // Point values only (no intervals): the spec's rule.
      rule: 'point',
    });
    expect(evaluation.verdict).toBe('fail');
    expect(variantGates(evaluation, 'control').verdict).toBe('pass');
    expect(variantGates(evaluation, 'slow').verdict).toBe('fail');
    expect(variantGates(evaluation, 'new').verdict).toBe('inconclusive');
    expect(variantGates(evaluation, 'slow').results.map((r) => r.variant)).toEqual(['slow', 'slow', 'slow', 'slow']);
  });
});

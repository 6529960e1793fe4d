import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.js';
import { ExperimentCreateSchema, type ExperimentCreate } from '../../../src/experiments/experiment.schema.js';
import {
  assertValidExperiment,
  validateAllocation,
  validateConfidenceLevel,
  validateExperiment,
  validateWeights,
} from '../../../src/experiments/validate-experiment.js';

const weights = { author_preference: 0.4, content_engagement: 0.3, recency: 0.2, semantic_similarity: 0.1 };
const variant = (name: string, allocation: number, isControl = false) => ({
  name,
  traffic_allocation: allocation,
  is_control: isControl,
  algorithm_config: { weights: { ...weights } },
});
const valid = (): ExperimentCreate => ({
  name: 'ranking v2',
  traffic_percentage: 100,
  minimum_sample_size: 1000,
  confidence_level: 0.95,
  variants: [variant('control', 50, true), variant('treatment', 30), variant('canary', 20)],
});
const fieldsOf = (input: ExperimentCreate): string[] => validateExperiment(input).map((issue) => issue.field);

describe('ExperimentCreateSchema', () => {
  it('accepts the spec creation shape and applies defaults', () => {
    const body = Value.Default(ExperimentCreateSchema, { name: 'x', variants: valid().variants }) as ExperimentCreate;
    expect(Value.Check(ExperimentCreateSchema, body)).toBe(true);
    expect(body).toMatchObject({ traffic_percentage: 100, minimum_sample_size: 1000, confidence_level: 0.95 });
  });

  it('rejects unknown properties and wrong types', () => {
    expect(Value.Check(ExperimentCreateSchema, { ...valid(), colour: 'red' })).toBe(false);
    expect(Value.Check(ExperimentCreateSchema, { ...valid(), minimum_sample_size: 10.5 })).toBe(false);
    const typo = valid();
    (typo.variants[0] as Record<string, unknown>).is_controll = true;
    expect(Value.Check(ExperimentCreateSchema, typo)).toBe(false);
  });
});

describe('the fifth weight, collaborative', () => {
  it('is optional: four weights summing to 1 stay valid, five must sum to 1 with it', () => {
    const five = valid();
    five.variants[1]!.algorithm_config.weights = { ...weights, recency: 0.1, collaborative: 0.1 };
    expect(Value.Check(ExperimentCreateSchema, five)).toBe(true);
    expect(validateExperiment(five)).toEqual([]);
    five.variants[1]!.algorithm_config.weights.collaborative = 0.3;
    expect(fieldsOf(five)).toEqual(['variants[1].algorithm_config.weights']);
    five.variants[1]!.algorithm_config.weights.collaborative = -0.1;
    expect(fieldsOf(five)).toEqual(['variants[1].algorithm_config.weights.collaborative']);
    expect(validateWeights({ ...weights, collaborative: 0 })).toBeUndefined();
  });
});

describe('validateExperiment', () => {
  it('accepts a valid experiment, including allocations summing to 100 up to rounding', () => {
    expect(validateExperiment(valid())).toEqual([]);
    const thirds = { ...valid(), variants: [variant('a', 100 / 3, true), variant('b', 100 / 3), variant('c', 100 / 3)] };
    expect(validateExperiment(thirds)).toEqual([]);
  });

  it.each([
    ['fewer than two variants', (e: ExperimentCreate) => void (e.variants = [variant('control', 100, true)]), 'variants'],
    ['no control', (e: ExperimentCreate) => void (e.variants[0]!.is_control = false), 'variants'],
    ['two controls', (e: ExperimentCreate) => void (e.variants[1]!.is_control = true), 'variants'],
    ['allocation of zero', (e: ExperimentCreate) => void (e.variants[2]!.traffic_allocation = 0), 'variants[2].traffic_allocation'],
    ['allocations summing to 99', (e: ExperimentCreate) => void (e.variants[2]!.traffic_allocation = 19), 'variants'],
    [
      'a weight above 1',
      (e: ExperimentCreate) => void (e.variants[1]!.algorithm_config.weights.recency = 1.2),
      'variants[1].algorithm_config.weights.recency',
    ],
    [
      'weights summing to 0.9',
      (e: ExperimentCreate) => void (e.variants[1]!.algorithm_config.weights.recency = 0.1),
      'variants[1].algorithm_config.weights',
    ],
    ['a duplicate name', (e: ExperimentCreate) => void (e.variants[2]!.name = 'control'), 'variants[2].name'],
    [
      'semantic weight above 1',
      (e: ExperimentCreate) => void (e.variants[0]!.algorithm_config.semantic_weight = 2),
      'variants[0].algorithm_config.semantic_weight',
    ],
    ['traffic percentage of 0', (e: ExperimentCreate) => void (e.traffic_percentage = 0), 'traffic_percentage'],
    ['traffic percentage above 100', (e: ExperimentCreate) => void (e.traffic_percentage = 100.5), 'traffic_percentage'],
    ['confidence level of 1', (e: ExperimentCreate) => void (e.confidence_level = 1), 'confidence_level'],
    ['minimum sample size of 0', (e: ExperimentCreate) => void (e.minimum_sample_size = 0), 'minimum_sample_size'],
    ['a CTR gate above 1', (e: ExperimentCreate) => void (e.gates = { min_click_through_rate: 5 }), 'gates.min_click_through_rate'],
  ])('names the field for %s', (_name, mutate, field) => {
    const input = valid();
    mutate(input);
    expect(fieldsOf(input)).toEqual([field]);
  });

  it('tolerates weight sums within 1e-6 but not beyond', () => {
    const input = valid();
    input.variants[0]!.algorithm_config.weights.recency = 0.2 + 5e-7;
    expect(validateExperiment(input)).toEqual([]);
    input.variants[0]!.algorithm_config.weights.recency = 0.2 + 2e-6;
    expect(fieldsOf(input)).toEqual(['variants[0].algorithm_config.weights']);
  });

  it('writes messages a person can act on', () => {
    const input = valid();
    input.variants[2]!.traffic_allocation = 25;
    expect(validateExperiment(input)[0]?.message).toBe('traffic allocations must add up to 100 (they add up to 105: 50 + 30 + 25)');
    input.variants[2]!.traffic_allocation = -5;
    expect(validateExperiment(input)[0]?.message).toBe(
      'variant "canary": traffic allocation must be greater than 0 and at most 100 (got -5)',
    );
  });

  it('assertValidExperiment throws a ValidationError carrying the first field', () => {
    const input = valid();
    input.confidence_level = 95;
    const error = (() => {
      try {
        assertValidExperiment(input);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ statusCode: 400, field: 'confidence_level' });
    expect(() => assertValidExperiment(valid())).not.toThrow();
  });
});

describe('single-field validators for prompts', () => {
  it('return undefined when valid and a message otherwise', () => {
    expect(validateAllocation(0.5)).toBeUndefined();
    expect(validateAllocation('10')).toMatch(/must be a number/);
    expect(validateConfidenceLevel(0.9)).toBeUndefined();
    expect(validateConfidenceLevel(0)).toMatch(/strictly between 0 and 1/);
    expect(validateWeights(weights)).toBeUndefined();
    expect(validateWeights({ ...weights, recency: -0.1 })).toBe('weight recency must be between 0 and 1 (got -0.1)');
    expect(validateWeights({ ...weights, recency: 0.5 })).toMatch(/must add up to 1.0 \(they add up to 1.3/);
  });
});

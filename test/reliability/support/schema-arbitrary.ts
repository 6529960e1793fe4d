/**
 * fast-check arbitraries from the JSON Schemas of the OpenAPI document: values the
 * schema accepts (kept small: a fuzz run is about edges, not volume), with hints
 * by property name so that ids point at rows that exist (a user of the pool, a
 * seeded post or experiment) often enough to reach the code behind validation.
 */
import fc from 'fast-check';
import type { JsonSchema } from './openapi-operations.js';

/** Arbitraries preferred for properties and parameters of a given name. */
export type NameHints = Record<string, fc.Arbitrary<unknown>>;

const MAX_STRING = 24;
const MAX_ITEMS = 3;

/** An arbitrary of values that `schema` accepts. */
export function validValue(schema: JsonSchema, hints: NameHints = {}, name?: string): fc.Arbitrary<unknown> {
  const generated = fromSchema(schema, hints);
  const hint = name === undefined ? undefined : hints[name];
  return hint ? fc.oneof({ weight: 5, arbitrary: hint }, { weight: 1, arbitrary: generated }) : generated;
}

function fromSchema(schema: JsonSchema, hints: NameHints): fc.Arbitrary<unknown> {
  const core = coreArbitrary(schema, hints);
  return schema.nullable === true ? fc.oneof({ weight: 4, arbitrary: core }, { weight: 1, arbitrary: fc.constant(null) }) : core;
}

function coreArbitrary(schema: JsonSchema, hints: NameHints): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const choices = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(choices) && choices.length > 0) return fc.oneof(...choices.map((choice) => fromSchema(choice, hints)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0)
    return fromSchema(Object.assign({}, ...(schema.allOf as JsonSchema[])), hints);
  const type = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type === undefined ? undefined : [schema.type as string];
  if (type && type.length > 1) return fc.oneof(...type.map((t) => fromSchema({ ...schema, type: t }, hints)));
  switch (type?.[0] ?? (schema.properties ? 'object' : undefined)) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.integer({ min: bound(schema, 'min', -1_000_000), max: bound(schema, 'max', 1_000_000) });
    case 'number':
      return fc.double({ min: bound(schema, 'min', -1e6), max: bound(schema, 'max', 1e6), noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (schema.items as JsonSchema | undefined) ?? {};
      const minLength = Number(schema.minItems ?? 0);
      const maxLength = Math.max(minLength, Math.min(Number(schema.maxItems ?? MAX_ITEMS), MAX_ITEMS));
      return fc.array(fromSchema(items, hints), { minLength, maxLength });
    }
    case 'object':
      return objectArbitrary(schema, hints);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function bound(schema: JsonSchema, side: 'min' | 'max', fallback: number): number {
  const inclusive = schema[side === 'min' ? 'minimum' : 'maximum'];
  const exclusive = schema[side === 'min' ? 'exclusiveMinimum' : 'exclusiveMaximum'];
  if (typeof exclusive === 'number') return side === 'min' ? exclusive + 1e-6 : exclusive - 1e-6;
  return typeof inclusive === 'number' ? inclusive : fallback;
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = Number(schema.minLength ?? 0);
  const maxLength = Math.max(minLength, Math.min(Number(schema.maxLength ?? MAX_STRING), MAX_STRING));
  if (schema.format === 'date-time') {
    return fc
      .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  if (typeof schema.pattern === 'string') {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .map((s) => s.slice(0, maxLength))
      .filter((s) => s.length >= minLength);
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme' });
}

function objectArbitrary(schema: JsonSchema, hints: NameHints): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const names = Object.keys(properties);
  if (names.length === 0) {
    // A free-form object (e.g. an interaction's `context`): a few small JSON values.
    const maxKeys = Math.min(Number(schema.maxProperties ?? 4), 4);
    return schema.additionalProperties === false
      ? fc.constant({})
      : fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) model[name] = validValue(properties[name]!, hints, name);
  return fc.record(model, { requiredKeys: names.filter((name) => required.has(name)) });
}

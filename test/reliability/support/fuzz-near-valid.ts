/**
 * Near-valid requests: a valid draft with one thing wrong — a required value
 * missing, an unknown property, a value of the wrong type or just out of range, a
 * loosely written integer (`0x28`, `+40`, `4e1`) — or spelled differently but
 * equivalently (a percent-encoded letter in the path, a content type with charset).
 */
import fc from 'fast-check';
import type { JsonSchema, Operation } from './openapi-operations.js';
import type { Draft } from './fuzz-request.js';

/** Integers as a lax parser would read them; decisions.md wants each to be a 400. */
export const LOOSE_INTEGERS = [
  '0x28',
  '+40',
  ' 40',
  '40 ',
  '4e1',
  '40.0',
  '1.5',
  '-1',
  '0',
  '41',
  '1e309',
  'NaN',
  'Infinity',
  '',
  '99999999999999999999',
  '٤٠',
];

interface Mutation {
  what: string;
  apply: (draft: Draft) => Draft;
}

/** A draft with one near-valid change, described. */
export function nearValidDraft(operation: Operation, valid: fc.Arbitrary<Draft>): fc.Arbitrary<{ draft: Draft; what: string }> {
  return valid.chain((draft) => {
    const mutations = [...parameterMutations(operation), ...bodyMutations(operation, draft), ...spellingMutations(operation)];
    return fc.constantFrom(...mutations).map((m) => ({ draft: m.apply(draft), what: m.what }));
  });
}

function parameterMutations(operation: Operation): Mutation[] {
  const out: Mutation[] = [];
  for (const p of operation.parameters) {
    const type = p.schema.type;
    if (p.in === 'query') {
      const without = (d: Draft): Array<[string, string]> => d.query.filter(([k]) => k !== p.name);
      if (p.required) out.push({ what: `query ${p.name} missing`, apply: (d) => ({ ...d, query: without(d) }) });
      if (type === 'integer' || type === 'number') {
        for (const loose of LOOSE_INTEGERS)
          out.push({ what: `query ${p.name}=${JSON.stringify(loose)}`, apply: (d) => ({ ...d, query: [...without(d), [p.name, loose]] }) });
      }
      if (typeof p.schema.maxLength === 'number') {
        const long = 'x'.repeat(p.schema.maxLength + 1);
        out.push({ what: `query ${p.name} one character too long`, apply: (d) => ({ ...d, query: [...without(d), [p.name, long]] }) });
      }
      if (Array.isArray(p.schema.enum))
        out.push({ what: `query ${p.name} outside its enum`, apply: (d) => ({ ...d, query: [...without(d), [p.name, 'NOT_A_VALUE']] }) });
      out.push({ what: `query ${p.name} twice`, apply: (d) => ({ ...d, query: [...d.query, [p.name, '1'], [p.name, '2']] }) });
      out.push({ what: `query ${p.name}[]`, apply: (d) => ({ ...d, query: [...without(d), [`${p.name}[]`, '1']] }) });
      out.push({ what: `query ${p.name} empty`, apply: (d) => ({ ...d, query: [...without(d), [p.name, '']] }) });
    }
    if (p.in === 'path') {
      const bad =
        type === 'integer' ? ['0', '-1', '1.5', 'abc', '1e3', '0x10', '+1', '99999999999999999999'] : ['x'.repeat(65), ' ', '..', '.'];
      for (const value of bad)
        out.push({
          what: `path ${p.name}=${JSON.stringify(value)}`,
          apply: (d) => ({ ...d, pathValues: { ...d.pathValues, [p.name]: value } }),
        });
    }
  }
  return out;
}

/** Every (object, key, schema) reachable in a body value, with the object's schema. */
function bodySlots(
  value: unknown,
  schema: JsonSchema,
  path: Array<string | number> = [],
): Array<{ path: Array<string | number>; schema: JsonSchema; parent: JsonSchema }> {
  const slots: Array<{ path: Array<string | number>; schema: JsonSchema; parent: JsonSchema }> = [];
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => slots.push(...bodySlots(item, schema.items as JsonSchema, [...path, i])));
  } else if (value && typeof value === 'object' && schema.properties) {
    const properties = schema.properties as Record<string, JsonSchema>;
    for (const key of Object.keys(value)) {
      const child = properties[key];
      if (!child) continue;
      slots.push({ path: [...path, key], schema: child, parent: schema });
      slots.push(...bodySlots((value as Record<string, unknown>)[key], child, [...path, key]));
    }
  }
  return slots;
}

function setAt(value: unknown, path: Array<string | number>, replace: (old: unknown) => unknown /* or DELETE */): unknown {
  if (path.length === 0) return replace(value);
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) }) as Record<
    string | number,
    unknown
  >;
  const next = setAt(copy[head!], rest, replace);
  if (next === DELETE) delete copy[head!];
  else copy[head!] = next;
  return copy;
}

const DELETE = Symbol('delete');

function wrongTypeFor(schema: JsonSchema): unknown[] {
  switch (schema.type) {
    case 'string':
      return [12345, true, ['a'], { a: 1 }, null];
    case 'integer':
    case 'number':
      return ['12', true, [1], { n: 1 }, null];
    case 'boolean':
      return ['true', 1, null];
    case 'array':
      return [{}, 'a,b', null];
    case 'object':
      return [[], 'object', 1, null];
    default:
      return [null];
  }
}

function bodyMutations(operation: Operation, draft: Draft): Mutation[] {
  if (!operation.body || !draft.body || !('json' in draft.body)) return [];
  const json = draft.body.json;
  const withBody = (d: Draft, value: unknown): Draft => ({ ...d, body: { json: value } });
  const out: Mutation[] = [
    { what: 'body with an unknown property', apply: (d) => withBody(d, { ...(json as object), unexpected_property: 1 }) },
    { what: 'body empty object', apply: (d) => withBody(d, {}) },
  ];
  for (const slot of bodySlots(json, operation.body)) {
    const at = slot.path.join('.');
    const required = ((slot.parent.required as string[] | undefined) ?? []).includes(String(slot.path[slot.path.length - 1]));
    if (required)
      out.push({
        what: `body ${at} missing`,
        apply: (d) =>
          withBody(
            d,
            setAt(json, slot.path, () => DELETE),
          ),
      });
    for (const wrong of wrongTypeFor(slot.schema))
      out.push({
        what: `body ${at} of the wrong type (${JSON.stringify(wrong)})`,
        apply: (d) =>
          withBody(
            d,
            setAt(json, slot.path, () => wrong),
          ),
      });
    const {
      minimum,
      maximum,
      maxLength,
      enum: allowed,
      type,
    } = slot.schema as { minimum?: number; maximum?: number; maxLength?: number; enum?: unknown[]; type?: string };
    if (typeof minimum === 'number')
      out.push({
        what: `body ${at} below its minimum`,
        apply: (d) =>
          withBody(
            d,
            setAt(json, slot.path, () => minimum - 1),
          ),
      });
    if (typeof maximum === 'number')
      out.push({
        what: `body ${at} above its maximum`,
        apply: (d) =>
          withBody(
            d,
            setAt(json, slot.path, () => maximum + 1),
          ),
      });
    if (type === 'integer')
      out.push({
        what: `body ${at} not an integer`,
        apply: (d) =>
          withBody(
            d,
            setAt(json, slot.path, () => 2.5),
          ),
      });
    if (typeof maxLength === 'number')
      out.push({
        what: `body ${at} one character too long`,
        apply: (d) =>
          withBody(
            d,
            setAt(json, slot.path, () => 'y'.repeat(maxLength + 1)),
          ),
      });
    if (Array.isArray(allowed))
      out.push({
        what: `body ${at} outside its enum`,
        apply: (d) =>
          withBody(
            d,
            setAt(json, slot.path, () => 'NOT_A_VALUE'),
          ),
      });
  }
  return out;
}

function spellingMutations(operation: Operation): Mutation[] {
  const out: Mutation[] = [
    {
      what: 'a path letter percent-encoded',
      apply: (d) => ({
        ...d,
        spellTarget: (target) =>
          target.replace(
            /^(\/[^?]*?)([a-z])([^?]*)/,
            (_m, a: string, letter: string, b: string) => `${a}%${letter.charCodeAt(0).toString(16)}${b}`,
          ),
      }),
    },
    { what: 'trailing slash', apply: (d) => ({ ...d, spellTarget: (target) => target.replace(/^([^?]*)/, '$1/') }) },
  ];
  if (operation.body) {
    for (const type of [
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/json;charset=UTF-8',
      'application/json ; charset=utf-8',
    ]) {
      out.push({ what: `Content-Type ${JSON.stringify(type)}`, apply: (d) => ({ ...d, contentType: type }) });
    }
  }
  return out;
}

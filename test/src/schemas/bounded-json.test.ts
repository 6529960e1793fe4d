import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.js';
import {
  CONTEXT_BOUNDS,
  depthOnlyBounds,
  findJsonBoundsViolation,
  parseWithinBounds,
  stringifyWithinBounds,
  utf8Length,
  type JsonBounds,
} from '../../../src/schemas/bounded-json.js';

/** `{"a":{"a":…1…}}` with `depth` objects, built without recursion. */
function nested(depth: number, key = 'a'): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { [key]: value };
  return value;
}

/** An independent, recursive statement of the bounds (fine for the small values fast-check makes). */
function withinBounds(value: unknown, bounds: JsonBounds, depth = 1): boolean {
  if (typeof value === 'string') return value.length <= bounds.maxStringLength;
  if (value === null || typeof value !== 'object') return true;
  if (depth > bounds.maxDepth) return false;
  if (Array.isArray(value)) return value.length <= bounds.maxArrayLength && value.every((v) => withinBounds(v, bounds, depth + 1));
  const entries = Object.entries(value);
  return (
    entries.length <= bounds.maxKeys && entries.every(([k, v]) => k.length <= bounds.maxKeyLength && withinBounds(v, bounds, depth + 1))
  );
}

const small: JsonBounds = { maxDepth: 3, maxKeys: 3, maxKeyLength: 4, maxStringLength: 5, maxArrayLength: 3, maxBytes: 60 };

describe('findJsonBoundsViolation', () => {
  it('accepts exactly the maximum depth and names the first container past it', () => {
    expect(findJsonBoundsViolation(nested(4), CONTEXT_BOUNDS, 'context')).toBeUndefined();
    expect(findJsonBoundsViolation(nested(5), CONTEXT_BOUNDS, 'context')).toEqual({
      path: 'context.a.a.a.a',
      message: 'context.a.a.a.a is nested deeper than 4 levels',
    });
    expect(findJsonBoundsViolation({ list: [[[]]] }, CONTEXT_BOUNDS, 'context')).toBeUndefined();
    expect(findJsonBoundsViolation({ list: [[[[]]]] }, CONTEXT_BOUNDS, 'context')?.path).toBe('context.list[0][0][0]');
  });

  it('checks a value nested 200,000 deep without overflowing the stack', () => {
    const deep = nested(200_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError); // what the serialisers did
    expect(findJsonBoundsViolation(deep, depthOnlyBounds(32))?.path).toBe(Array(32).fill('a').join('.'));
    expect(findJsonBoundsViolation(deep, depthOnlyBounds(32))?.message).toMatch(/nested deeper than 32 levels$/);
  });

  it('names the offending key count, key, string, array and size', () => {
    expect(findJsonBoundsViolation({ a: 1, b: 2, c: 3, d: 4 }, small, 'x')).toMatchObject({ path: 'x', message: 'x has more than 3 keys' });
    expect(findJsonBoundsViolation({ a: { toolong: 1 } }, small, 'x')).toMatchObject({
      path: 'x.a',
      message: 'x.a has a key longer than 4 characters',
    });
    expect(findJsonBoundsViolation({ a: ['ok', 'too long'] }, small, 'x')).toMatchObject({
      path: 'x.a[1]',
      message: 'x.a[1] is longer than 5 characters',
    });
    expect(findJsonBoundsViolation({ a: [1, 2, 3, 4] }, small, 'x')).toMatchObject({ path: 'x.a', message: 'x.a has more than 3 items' });
    // 3 keys x 3 strings of 5 characters, each within bounds; together over 60 bytes.
    const big = { a: ['12345', '12345', '12345'], b: ['12345', '12345', '12345'] };
    expect(JSON.stringify(big).length).toBeGreaterThan(60);
    expect(findJsonBoundsViolation(big, small, 'x')).toMatchObject({ path: 'x', message: 'x is larger than 60 bytes as JSON' });
    expect(findJsonBoundsViolation('toolong', small)).toMatchObject({ path: '', message: 'body is longer than 5 characters' });
  });

  it('measures size in UTF-8 bytes, not characters', () => {
    const bounds = { ...small, maxStringLength: 100, maxBytes: 20 };
    expect(findJsonBoundsViolation({ a: 'ééééé' }, bounds)).toBeUndefined(); // 18 bytes
    expect(findJsonBoundsViolation({ a: 'ééééééé' }, bounds)?.message).toBe('body is larger than 20 bytes as JSON'); // 15 characters, 22 bytes
  });

  it('shortens very long keys in the reported path', () => {
    const key = 'k'.repeat(10_000);
    const violation = findJsonBoundsViolation(nested(3, key), depthOnlyBounds(2), 'body');
    const shown = `${'k'.repeat(64)}…`;
    expect(violation?.path).toBe(`body.${shown}.${shown}`);
  });

  it('agrees with a recursive statement of the bounds on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const bounds = { ...small, maxBytes: Infinity };
        expect(findJsonBoundsViolation(value, bounds) === undefined).toBe(withinBounds(value, bounds));
      }),
      { numRuns: 500 },
    );
  });
});

describe('stringifyWithinBounds and parseWithinBounds', () => {
  it('serialises a value within bounds and throws a ValidationError naming the path otherwise', () => {
    expect(stringifyWithinBounds({ source: 'home', position: 3 }, CONTEXT_BOUNDS, 'context')).toBe('{"source":"home","position":3}');
    let error: unknown;
    try {
      stringifyWithinBounds(nested(5_000), CONTEXT_BOUNDS, 'context');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ statusCode: 400, field: 'context.a.a.a.a' });
  });

  it('reads stored JSON only when it is within bounds', () => {
    expect(parseWithinBounds('{"source":"home"}', CONTEXT_BOUNDS)).toEqual({ source: 'home' });
    expect(parseWithinBounds(JSON.stringify({ a: 'x'.repeat(5_000) }), CONTEXT_BOUNDS)).toBeUndefined();
    expect(parseWithinBounds('{"a":'.repeat(800) + '1' + '}'.repeat(800), CONTEXT_BOUNDS)).toBeUndefined(); // 4,801 characters
    expect(parseWithinBounds('{"a":'.repeat(5) + '1' + '}'.repeat(5), CONTEXT_BOUNDS)).toBeUndefined();
    expect(parseWithinBounds('not json', CONTEXT_BOUNDS)).toBeUndefined();
  });
});

describe('utf8Length', () => {
  it('equals the encoded length of any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
      }),
      { numRuns: 300 },
    );
  });
});

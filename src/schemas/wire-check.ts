/**
 * Checking a value received over the wire against the TypeBox schema the server
 * serialises it with, so the CLI reads only what the API contract promises. Pure:
 * the caller decides what a mismatch means (the CLI: exit 3, naming the field).
 */
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** RFC 3339 date-time, as the server writes it (`toISOString`); TypeBox checks no format it was not taught. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)));

/** Where a value breaks its schema: the field as the API's error bodies name fields (`variants[0].name`). */
export interface WireMismatch {
  field: string;
  message: string;
}

/** A JSON pointer (`/variants/0/name`) as a field path (`variants[0].name`); the root is `(body)`. */
export function pointerToField(pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts.length === 0) return '(body)';
  return parts.reduce((field, part) => (/^\d+$/.test(part) ? `${field}[${part}]` : field === '' ? part : `${field}.${part}`), '');
}

/** The first place `value` breaks `schema`, or undefined when it conforms. */
export function findWireMismatch(schema: TSchema, value: unknown): WireMismatch | undefined {
  if (Value.Check(schema, value)) return undefined;
  const first = Value.Errors(schema, value).First();
  if (first === undefined) return { field: '(body)', message: 'does not match the schema' };
  return { field: pointerToField(first.path), message: first.message };
}

/**
 * Wire schemas every endpoint shares: the spec's error body and the success
 * envelope. The server validates and documents with these; the CLI reads them.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

export const ErrorBodySchema = Type.Object(
  {
    error: Type.String({ description: 'Short error name, e.g. `Invalid request`' }),
    message: Type.String(),
    field: Type.Optional(Type.String({ description: 'The offending parameter' })),
    request_id: Type.String(),
    status_code: Type.Integer(),
    retry_after: Type.Optional(Type.Integer({ description: 'Seconds; only with 429' })),
  },
  { title: 'Error' },
);
export type ErrorBody = Static<typeof ErrorBodySchema>;

export const MetaSchema = Type.Object({
  request_id: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
});
export type Meta = Static<typeof MetaSchema>;

/** The success envelope `{ data, meta }` around a resource schema. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ data, meta: MetaSchema });
}

/** Error responses a route may give, for its `response` schema: `...errorResponses(400, 401)`. */
export function errorResponses(...codes: number[]): Record<number, typeof ErrorBodySchema> {
  const out: Record<number, typeof ErrorBodySchema> = {};
  for (const code of codes) out[code] = ErrorBodySchema;
  return out;
}

/** A string limited to listed values, emitted as JSON Schema `enum` (so a bad value is 400 `Invalid parameter`). */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

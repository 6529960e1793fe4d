/**
 * Wire schemas every endpoint shares: the spec's error body and the success
 * envelope. The server validates and documents with these; the CLI reads them.
 */
import { Type, type SchemaOptions, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';

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

/**
 * The longest user id: a Mastodon user is `<account id>@<instance host>` (server/platform/social),
 * and a host name alone may be 253 characters, so 64 for the account id, `@`, and the host.
 */
export const MAX_USER_ID_LENGTH = 320;
/** A user id as the API takes it (the spec sets no length: this bound only caps abuse). */
export const UserIdSchema = Type.String({ minLength: 1, maxLength: MAX_USER_ID_LENGTH });

export const MetaSchema = Type.Object(
  {
    request_id: Type.String(),
    timestamp: Type.String({ format: 'date-time' }),
  },
  { title: 'Meta' },
);
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

/**
 * Response headers the service sets, by name. Every response carries the first
 * four; the rate-limited routes (every /api/v1 route but health) the next three;
 * 429 and 503 `Retry-After`; 401 `WWW-Authenticate`; Mastodon-shaped lists `Link`.
 */
export const ResponseHeaderSchemas = {
  'X-Request-ID': Type.String({
    description:
      "The request's id: the client's own X-Request-ID when it is 1-128 characters of `[A-Za-z0-9._:-]`, else a new UUID; equals `request_id` in error bodies",
  }),
  'X-Process-Time': Type.String({
    description: 'Seconds the service spent on the request, as a decimal',
    pattern: '^[0-9]+\\.[0-9]+$',
    example: '0.001234',
  }),
  'X-Service-Version': Type.String({ description: 'Version of the recsvc package answering' }),
  'X-API-Version': Type.String({ description: 'Version of this API', example: 'v1' }),
  'X-RateLimit-Limit': Type.Integer({ description: 'Requests allowed in the tightest rate-limit window that applies', minimum: 1 }),
  'X-RateLimit-Remaining': Type.Integer({ description: 'Requests left in that window', minimum: 0 }),
  'X-RateLimit-Reset': Type.Integer({ description: 'When that window resets, in epoch seconds' }),
  'Retry-After': Type.Integer({ description: 'Seconds to wait before retrying' }),
  'WWW-Authenticate': Type.String({
    description:
      'The Bearer challenge of a 401 (RFC 6750): `Bearer realm="recsvc"`, with `error="invalid_token"` when a token was sent and refused',
  }),
  Link: Type.String({
    description: 'Mastodon paging: absolute URLs of the next (older) and previous (newer) pages, `<…>; rel="next", <…>; rel="prev"`',
  }),
} as const;
export type ResponseHeaderName = keyof typeof ResponseHeaderSchemas;

/** A string limited to listed values, emitted as JSON Schema `enum` (so a bad value is 400 `Invalid parameter`). */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** One of the listed strings, as a union of literals (JSON Schema `anyOf` of `const`): the schema of a vocabulary declared once as a const array. */
export function LiteralUnion<T extends string>(values: readonly T[], options: SchemaOptions = {}): TUnion<TLiteral<T>[]> {
  return Type.Union<TLiteral<T>[]>(
    values.map((value) => Type.Literal(value)),
    options,
  );
}

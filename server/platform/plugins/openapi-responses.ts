/**
 * Completes every operation of the OpenAPI document centrally, so route files
 * declare only their success bodies and their own domain errors: each response
 * gets a description, each operation the error statuses that the cross-cutting
 * plugins really produce (auth, validation, body parsing, rate limits, load
 * shedding, the error handler), and each response the headers those plugins set.
 */
import { STATUS_CODES } from 'node:http';
import { isRateLimitedPath } from '../../../src/rate-limit/policy.js';
import { ResponseHeaderSchemas, type ResponseHeaderName } from '../../../src/schemas/common.schema.js';

/** The parts of an OpenAPI 3.0 document this module reads and writes. */
export interface OpenapiDocument {
  security?: ReadonlyArray<Record<string, unknown>>;
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
  [key: string]: unknown;
}

interface Operation {
  security?: ReadonlyArray<Record<string, unknown>>;
  parameters?: ReadonlyArray<{ in?: string; name?: string }>;
  requestBody?: unknown;
  responses?: Record<string, Response>;
}

interface Response {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}

/** Descriptions by status, naming the spec's `error` value so clients know the body to expect. */
const RESPONSE_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: '`Invalid request`: a missing or malformed parameter, an unknown body property or bad JSON (`field` names it); `Invalid parameter`: a value outside its allowed set',
  401: '`Authentication required`: no bearer token, or an unknown, expired or revoked one',
  403: "`Forbidden`: a valid token without the needed scope, or another user's data",
  404: '`Resource not found`: unknown route or id',
  409: '`Conflict`: the change is not allowed in the current state (the message names it)',
  413: '`Payload too large`: the body is over the body limit (1 MiB by default)',
  415: '`Unsupported media type`: a body that is not `application/json`',
  429: '`Rate limit exceeded`: retry after `Retry-After` seconds (also `retry_after` in the body)',
  500: '`Internal server error`: a generic message; the details are logged under the request id',
  503: '`Service unavailable`: overloaded or shutting down; retry after `Retry-After` seconds',
};

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const COMMON_HEADERS: ResponseHeaderName[] = ['X-Request-ID', 'X-Process-Time', 'X-Service-Version', 'X-API-Version'];
const RATE_LIMIT_HEADERS: ResponseHeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const ERROR_SCHEMA_REF = { $ref: '#/components/schemas/Error' };

/** What the plugins in front of a route make it able to answer, read from its operation. */
interface OperationTraits {
  authenticated: boolean;
  takesInput: boolean;
  takesBody: boolean;
  rateLimited: boolean;
  paged: boolean;
}

/** Describes every response and adds the error statuses and headers each operation can give. */
export function completeOperations(document: OpenapiDocument): void {
  const components = (document.components ??= {});
  components.headers = { ...(components.headers as object | undefined), ...headerComponents() };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, value] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const operation = value as Operation;
      completeOperation(operation, traitsOf(document, path, method, operation));
    }
  }
}

function isListSchema(schema: { type?: string; properties?: Record<string, { type?: string }> } | undefined): boolean {
  return schema?.type === 'array' || schema?.properties?.data?.type === 'array';
}

function traitsOf(document: OpenapiDocument, path: string, method: string, operation: Operation): OperationTraits {
  // A public access rule marks its operation `security: []` (server/platform/plugins/access.ts); the rest inherit the document's bearer requirement.
  const security = operation.security ?? document.security ?? [];
  const query = (operation.parameters ?? []).filter((p) => p.in === 'query');
  return {
    authenticated: security.length > 0,
    takesInput: (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined,
    takesBody: operation.requestBody !== undefined,
    rateLimited: isRateLimitedPath(path),
    // Paged lists (a bare Mastodon array, or an envelope whose `data` is an array, bounded by `limit`) carry `Link`.
    paged:
      method === 'get' &&
      query.some((p) => p.name === 'limit') &&
      isListSchema(operation.responses?.['200']?.content?.['application/json']?.schema),
  };
}

function completeOperation(operation: Operation, traits: OperationTraits): void {
  const responses = (operation.responses ??= {});
  const added = [
    ...(traits.takesInput ? ['400'] : []),
    ...(traits.authenticated ? ['401', '403'] : []),
    ...(traits.takesBody ? ['413', '415'] : []),
    ...(traits.rateLimited ? ['429'] : []),
    '500',
    '503',
  ];
  for (const status of added) responses[status] ??= {};
  for (const [status, response] of Object.entries(responses)) {
    // One error handler answers every error with the spec's JSON body, whatever the route produces on success.
    if (Number(status) >= 400) response.content = { 'application/json': { schema: { ...ERROR_SCHEMA_REF } } };
    if (response.description === undefined || response.description === 'Default Response') {
      response.description = RESPONSE_DESCRIPTIONS[status] ?? STATUS_CODES[Number(status)] ?? 'Response';
    }
    response.headers = { ...headersFor(status, traits), ...response.headers };
  }
}

function headersFor(status: string, traits: OperationTraits): Record<string, unknown> {
  const names: ResponseHeaderName[] = [...COMMON_HEADERS];
  // The limiter runs before everything but load shedding, so its headers are on every other answer.
  if (traits.rateLimited && status !== '503') names.push(...RATE_LIMIT_HEADERS);
  if (status === '429' || status === '503') names.push('Retry-After');
  if (status === '401') names.push('WWW-Authenticate');
  if (traits.paged && status === '200') names.push('Link');
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** OpenAPI header objects from the TypeBox header schemas (a header's description sits beside its schema). */
function headerComponents(): Record<string, unknown> {
  const entries = Object.entries(ResponseHeaderSchemas).map(([name, typebox]) => {
    const { description, ...schema } = JSON.parse(JSON.stringify(typebox)) as { description: string };
    return [name, { description, schema }] as const;
  });
  return Object.fromEntries(entries);
}

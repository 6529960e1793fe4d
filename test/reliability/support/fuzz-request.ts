/**
 * A fuzz case is a draft request for one OpenAPI operation (path values, query
 * pairs, JSON body, headers) that mutations bend, rendered to raw HTTP at the end.
 * This file holds the draft, its rendering, and the valid drafts.
 */
import fc from 'fast-check';
import { fillPath, type Operation } from './openapi-operations.js';
import type { RawRequest } from './raw-http.js';
import { validValue, type NameHints } from './schema-arbitrary.js';

export type FuzzKind = 'valid' | 'near-valid' | 'hostile';

export interface Draft {
  method: string;
  /** Path parameter values, not yet encoded. */
  pathValues: Record<string, string>;
  /** Query pairs, not yet encoded. */
  query: Array<[string, string]>;
  /** Appended to the query string as is (already encoded or deliberately broken). */
  rawQuery?: string;
  /** A JSON value to serialise, or raw text/bytes sent as they are. */
  body?: { json: unknown } | { raw: string | Buffer };
  /** `null` sends no Content-Type even with a body. */
  contentType?: string | null;
  headers: Array<[string, string]>;
  /** Rewrites the rendered target (encoded spellings, broken paths). */
  spellTarget?: (target: string) => string;
}

export interface FuzzCase {
  kind: FuzzKind;
  /** What was done to the request, for failure messages and tallies. */
  what: string;
  /** The request, or raw bytes for cases below HTTP's grammar (built when sent, for the big ones). */
  request: RawRequest | Buffer | (() => RawRequest | Buffer);
  /** Garbage follows a complete request: its writes may be legitimate whatever the first answer. */
  pipelined?: boolean;
}

export interface FuzzTokens {
  admin: string;
  /** Bound to `userId`, scopes read and write. */
  user: string;
  userId: string;
}

/** Who sends a request: mostly an admin (to get past authorization into validation). */
export function authorizationArbitrary(tokens: FuzzTokens): fc.Arbitrary<{ who: string; headers: Array<[string, string]> }> {
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc.constant({ who: 'admin', headers: [['Authorization', `Bearer ${tokens.admin}`]] as Array<[string, string]> }),
    },
    {
      weight: 3,
      arbitrary: fc.constant({ who: 'user', headers: [['Authorization', `Bearer ${tokens.user}`]] as Array<[string, string]> }),
    },
    { weight: 2, arbitrary: fc.constant({ who: 'anonymous', headers: [] as Array<[string, string]> }) },
    {
      weight: 2,
      arbitrary: fc.constant({ who: 'bad token', headers: [['Authorization', 'Bearer rsv_not-a-real-token']] as Array<[string, string]> }),
    },
  );
}

/** Drafts the schema accepts: required parameters always, optional ones sometimes. */
export function validDraft(operation: Operation, hints: NameHints, tokens: FuzzTokens): fc.Arbitrary<Draft> {
  const pathParams = operation.parameters.filter((p) => p.in === 'path');
  const queryParams = operation.parameters.filter((p) => p.in === 'query');
  const pathArb = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, validValue(p.schema, hints, p.name).map(String)])));
  const queryArb = fc.tuple(
    ...queryParams.map((p) => {
      const value = validValue(p.schema, hints, p.name).map((v) => [p.name, String(v)] as [string, string]);
      return p.required ? value.map((pair) => [pair]) : fc.option(value, { nil: undefined }).map((pair) => (pair ? [pair] : []));
    }),
  );
  const bodyArb = operation.body ? validValue(operation.body, hints).map((json) => ({ json })) : fc.constant(undefined);
  return fc
    .record({ pathValues: pathArb, query: queryArb, body: bodyArb, auth: authorizationArbitrary(tokens) })
    .map(({ pathValues, query, body, auth }) => ({
      method: operation.method,
      pathValues: pathValues,
      query: query.flat(),
      ...(body ? { body } : {}),
      headers: auth.headers,
    }));
}

/** The raw request of a draft. */
export function renderDraft(operation: Operation, draft: Draft): RawRequest {
  const encodedPath: Record<string, string> = {};
  for (const [name, value] of Object.entries(draft.pathValues)) encodedPath[name] = encodeURIComponent(value);
  const queryText = [draft.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'), draft.rawQuery ?? '']
    .filter((part) => part !== '')
    .join('&');
  let target = fillPath(operation.path, encodedPath) + (queryText === '' ? '' : `?${queryText}`);
  if (draft.spellTarget) target = draft.spellTarget(target);
  const headers: Array<readonly [string, string]> = [...draft.headers];
  let body: string | Buffer | undefined;
  if (draft.body) {
    body = 'json' in draft.body ? JSON.stringify(draft.body.json) : draft.body.raw;
    const contentType = draft.contentType === undefined ? 'application/json' : draft.contentType;
    if (contentType !== null) headers.push(['Content-Type', contentType]);
  } else if (draft.contentType) {
    headers.push(['Content-Type', draft.contentType]);
  }
  return { method: draft.method, target, headers: headers, ...(body !== undefined ? { body } : {}) };
}

/**
 * `application/x-www-form-urlencoded` bodies, the encoding RFC 6749 prescribes for the token
 * and revocation endpoints (JSON, which Mastodon also accepts, goes through the app's own
 * parser). Registered inside the OAuth routes' scope only: elsewhere bodies stay JSON-only.
 * A repeated parameter becomes an array (the route schemas then refuse it where a single
 * value is due, as RFC 6749 §3.1 requires); `name[]` is the array `name`, as Rails reads it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Form bodies here are a few short parameters. */
const FORM_BODY_LIMIT = 64 * 1024;

export function parseFormBody(text: string): Record<string, string | string[]> {
  const values = new Map<string, string | string[]>();
  for (const [rawName, value] of new URLSearchParams(text)) {
    const isList = rawName.endsWith('[]');
    const name = isList ? rawName.slice(0, -2) : rawName;
    const previous = values.get(name);
    if (previous === undefined) values.set(name, isList ? [value] : value);
    else values.set(name, [...(Array.isArray(previous) ? previous : [previous]), value]);
  }
  // fromEntries defines own properties: a `__proto__` parameter is just a name, never a prototype.
  return Object.fromEntries(values);
}

/** True when the request's body came form-encoded (as a browser's form sends it). */
export function isFormBody(request: FastifyRequest): boolean {
  return /^application\/x-www-form-urlencoded\s*(;|$)/i.test(request.headers['content-type'] ?? '');
}

/** Adds the form parser to this (encapsulated) scope. */
export function acceptFormBodies(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      done(null, parseFormBody(body as string));
    },
  );
}

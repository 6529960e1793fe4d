/**
 * What the spec and decisions.md demand of every response the process writes,
 * parser-level answers and shutdown included: the common headers, the security
 * headers, and for errors the spec's body (error, message, request_id equal to
 * X-Request-ID, status_code; retry_after with 429) plus WWW-Authenticate on 401.
 * Returns the problems found, so a fuzz run can list them all.
 */
import { jsonBody, type RawResponse } from './raw-http.js';

const SECURITY_HEADERS: ReadonlyArray<readonly [string, (value: string) => boolean]> = [
  ['x-content-type-options', (v) => v.toLowerCase() === 'nosniff'],
  ['x-frame-options', (v) => v.toUpperCase() === 'SAMEORIGIN'],
  ['x-xss-protection', (v) => v.replace(/\s/g, '') === '1;mode=block'],
  ['content-security-policy', (v) => /default-src 'self'/.test(v)],
];

/** Problems with the headers every response carries. */
export function headerProblems(response: RawResponse): string[] {
  const problems: string[] = [];
  const h = response.headers;
  if (!h['x-request-id']) problems.push('no X-Request-ID');
  if (!h['x-service-version']) problems.push('no X-Service-Version');
  if (h['x-api-version'] !== 'v1') problems.push(`X-API-Version is ${JSON.stringify(h['x-api-version'])}, not "v1"`);
  if (h['x-process-time'] === undefined || !/^\d+(\.\d+)?$/.test(h['x-process-time']))
    problems.push(`X-Process-Time is ${JSON.stringify(h['x-process-time'])}`);
  for (const [name, ok] of SECURITY_HEADERS) {
    const value = h[name];
    if (value === undefined || !ok(value)) problems.push(`${name} is ${JSON.stringify(value)}`);
  }
  return problems;
}

/** Problems with an error response's body and error-specific headers. */
export function errorBodyProblems(response: RawResponse): string[] {
  const problems: string[] = [];
  if (!/^application\/json/i.test(response.headers['content-type'] ?? ''))
    problems.push(`error Content-Type is ${JSON.stringify(response.headers['content-type'])}`);
  const body = jsonBody(response) as Record<string, unknown> | undefined;
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    return [...problems, `error body is not the spec's JSON object: ${response.body.toString('utf8').slice(0, 200)}`];
  }
  if (typeof body.error !== 'string' || body.error === '') problems.push('error body without "error"');
  if (typeof body.message !== 'string') problems.push('error body without "message"');
  if (typeof body.request_id !== 'string' || body.request_id === '') problems.push('error body without "request_id"');
  else if (body.request_id !== response.headers['x-request-id'])
    problems.push(`request_id ${body.request_id} differs from X-Request-ID ${response.headers['x-request-id']}`);
  if (body.status_code !== response.status)
    problems.push(`status_code ${JSON.stringify(body.status_code)} differs from the status ${response.status}`);
  if (body.field !== undefined && typeof body.field !== 'string') problems.push('"field" is not a string');
  if ('stack' in body || 'trace' in body) problems.push('error body leaks a stack trace');
  if (response.status === 429 || response.status === 503) {
    const retryHeader = response.headers['retry-after'];
    if (retryHeader === undefined || !/^\d+$/.test(retryHeader))
      problems.push(`${response.status} without a Retry-After header of seconds`);
    if (response.status === 429) {
      if (!Number.isInteger(body.retry_after) || (body.retry_after as number) < 0) problems.push('429 without an integer retry_after');
      else if (retryHeader !== undefined && Number(retryHeader) !== body.retry_after)
        problems.push(`retry_after ${String(body.retry_after)} differs from Retry-After ${retryHeader}`);
    }
  } else if (body.retry_after !== undefined) problems.push(`retry_after on a ${response.status}`);
  // A refused user token is challenged with Bearer; a refused OAuth client (token, revoke) with Basic (RFC 6749 §5.2).
  const challenge = response.headers['www-authenticate'] ?? '';
  if (response.status === 401 && !/^Bearer\b/i.test(challenge) && !(body.error === 'invalid_client' && /^Basic\b/i.test(challenge)))
    problems.push('401 without WWW-Authenticate: Bearer (or Basic for an OAuth client)');
  return problems;
}

/** Every problem with a response: headers always, the error body from 400 on; 5xx other than 503 is itself a problem. */
export function specProblems(response: RawResponse): string[] {
  const problems = headerProblems(response);
  if (response.status >= 500 && response.status !== 503) problems.unshift(`server error ${response.status}`);
  if (response.status >= 400) problems.push(...errorBodyProblems(response));
  return problems;
}

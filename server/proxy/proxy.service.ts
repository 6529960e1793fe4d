/**
 * The transparent proxy: one request of a caller, forwarded to the same path on the
 * caller's social instance with the caller's Mastodon token, and the instance's answer
 * passed back as it came.
 *
 * - Path: what follows the proxy's prefix (`/api/v1/proxy/api/v1/statuses/1/favourite` →
 *   `/api/v1/statuses/1/favourite`), or the request's own path in drop-in mode. A path
 *   with a dot segment (`..`, `.`, in any percent-encoded spelling), a backslash, an
 *   empty first segment (`//host`, a scheme-relative URL) or control characters is 400:
 *   a path can only name something on the caller's own instance.
 * - Query and body go as they came: the query string byte for byte as the client wrote it
 *   (repeated `types[]=` keys, order, percent-encoding, empty values; never re-serialised
 *   from a parsed object), the body's bytes and its Content-Type unchanged.
 * - Request headers: an allow-list (Accept, Accept-Language, Idempotency-Key and the
 *   conditional ones), minus any header the caller's Connection header names (hop-by-hop
 *   by declaration, RFC 9110 7.6.1). Authorization is the caller's Mastodon token and
 *   nothing else; Cookie, Proxy-Authorization, X-Social-Instance, X-Forwarded-*, the
 *   hop-by-hop headers (Connection, Keep-Alive, TE, Trailer, Transfer-Encoding, Upgrade,
 *   Proxy-*) and everything else the caller sent stay here.
 * - Response: the instance's status and body, with an allow-list of headers
 *   (PROXIED_RESPONSE_HEADERS: Content-Type, Link, X-RateLimit-*, Retry-After, Location,
 *   caching validators, WWW-Authenticate), minus any its Connection header names.
 *   Set-Cookie, hop-by-hop headers, Server, and anything else never come back.
 * - Any status the instance answers (2xx to 5xx, 3xx not followed) is passed through. An
 *   instance that cannot be reached, times out, or sends more than the body cap is 503
 *   `Service unavailable` in the spec's error body (InstanceUnavailableError).
 */
import { ValidationError } from '../../src/errors.js';
import type { InstanceAddress, InstanceClient, InstanceRequest } from '../platform/social/social.service.js';

/** Request headers passed to the instance (lowercase); everything else is dropped. */
export const PROXIED_REQUEST_HEADERS = ['accept', 'accept-language', 'idempotency-key', 'if-none-match', 'if-modified-since'] as const;

/** Response headers passed back to the caller (lowercase); everything else is dropped. */
export const PROXIED_RESPONSE_HEADERS = [
  'content-type',
  'content-language',
  'link',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'location',
  'cache-control',
  'etag',
  'last-modified',
  'vary',
  'www-authenticate',
] as const;

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

export type ProxyMethod = NonNullable<InstanceRequest['method']>;

export interface ProxyRequest {
  readonly method: string;
  /** The path on the instance, as sent (percent-encoding kept), starting with `/`. */
  readonly path: string;
  /** The query string without `?` ('' for none). */
  readonly query: string;
  /** The caller's request headers (names lowercase, as Node gives them). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body's bytes, when one was sent. */
  readonly body: Buffer | undefined;
  /** The caller's Mastodon token; undefined sends the request without credentials. */
  readonly token: string | undefined;
  readonly signal?: AbortSignal;
}

export interface ProxyResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body: Buffer;
}

/**
 * Splits a request URL (origin-form, or absolute-form whose origin is ignored) into the
 * path after `prefix` and the raw query. 400 when the URL is not under the prefix.
 */
export function splitProxiedUrl(url: string, prefix: string): { path: string; query: string } {
  // The query is the raw text after the first `?` (no authority can contain one), never re-serialised.
  const mark = url.indexOf('?');
  const query = mark === -1 ? '' : url.slice(mark + 1);
  let pathPart = mark === -1 ? url : url.slice(0, mark);
  if (!pathPart.startsWith('/')) {
    // Absolute-form request target: only its path counts, never its origin.
    try {
      pathPart = new URL(pathPart).pathname;
    } catch {
      throw new ValidationError('The request target is not a path');
    }
  }
  if (!pathPart.startsWith(prefix)) throw new ValidationError(`The proxied path must start with ${prefix}`);
  const path = pathPart.slice(prefix.length);
  return { path: path === '' ? '/' : path, query };
}

/** 400 unless `path` can only name a resource on the instance itself (see the file's comment). */
export function checkProxiedPath(path: string): string {
  if (!path.startsWith('/') || path.startsWith('//')) {
    throw new ValidationError('The proxied path must be a path on the instance (no scheme, host or empty first segment)');
  }
  if (path.length > 2048) throw new ValidationError('The proxied path is too long');
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u0020\u007f#]/.test(path)) throw new ValidationError('The proxied path contains a character not allowed in a path');
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw new ValidationError('The proxied path has invalid percent-encoding');
  }
  for (const spelling of [path, decoded]) {
    if (spelling.split('/').some((segment) => segment === '.' || segment === '..')) {
      throw new ValidationError('The proxied path may not contain "." or ".." segments');
    }
    // eslint-disable-next-line no-control-regex -- control characters are what this refuses
    if (/[\\\u0000-\u001f\u007f]/.test(spelling) || spelling.startsWith('//')) {
      throw new ValidationError('The proxied path contains a character not allowed in a path');
    }
  }
  return path;
}

/** Header names listed in a Connection header (lowercase): hop-by-hop for this one connection. */
export function connectionTokens(value: string | string[] | undefined): Set<string> {
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    joined
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** Forwards one request to the instance and returns its answer, filtered (see the file's comment). */
export class ProxyService {
  constructor(private readonly client: InstanceClient) {}

  async forward(instance: InstanceAddress, request: ProxyRequest): Promise<ProxyResponse> {
    const method = request.method.toUpperCase();
    if (!METHODS.has(method)) throw new ValidationError(`The proxy does not forward ${method} requests`);
    const path = checkProxiedPath(request.path);
    const headers: Record<string, string> = {};
    const hopByHop = connectionTokens(request.headers.connection);
    for (const name of PROXIED_REQUEST_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string' && !hopByHop.has(name)) headers[name] = value;
    }
    const contentType = request.headers['content-type'];
    const hasBody = request.body !== undefined && (request.body.length > 0 || typeof contentType === 'string');
    const answer = await this.client.requestRaw(instance, {
      method: method as ProxyMethod,
      path,
      ...(request.query !== '' ? { rawQuery: request.query } : {}),
      ...(request.token !== undefined ? { token: request.token } : {}),
      headers,
      ...(hasBody
        ? { rawBody: { contentType: typeof contentType === 'string' ? contentType : 'application/octet-stream', data: request.body } }
        : {}),
      accept: 'any',
      redirects: 'return',
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const passed: Record<string, string | string[]> = {};
    const answerHopByHop = connectionTokens(answer.allHeaders.connection);
    for (const name of PROXIED_RESPONSE_HEADERS) {
      const value = answer.allHeaders[name];
      if (value !== undefined && !answerHopByHop.has(name)) passed[name] = value;
    }
    return { status: answer.status, headers: passed, body: answer.body };
  }
}

/**
 * The one way the service talks to a social instance (token checks, timelines, the proxy,
 * the OAuth flow): undici with a pooled keep-alive Agent, the caller's bearer token, and
 * the SSRF rules of ./instance-address.ts applied where the socket connects.
 *
 * - Every wait is bounded: connect, response headers, gaps in the body, and the whole
 *   exchange (short defaults, configurable), so a dead or slow instance is a prompt 503,
 *   never a hang.
 * - Redirects are never followed: a 3xx is an error (or, when asked, returned as it is).
 * - Bodies are capped (2 MiB by default): the read stops and the connection is dropped as
 *   soon as the cap is passed, whatever Content-Length said.
 * - Failures are typed: the instance refusing the token is 401 `Authentication required`
 *   for the caller; unreachable, timed out, 5xx, redirected, oversized or unreadable is
 *   503 `Service unavailable` (InstanceUnavailableError, with a `reason`).
 * - Tokens go in the Authorization header only; no message or error carries them.
 * - An instance answering 401 to a request made with a token (a timeline, a proxied call,
 *   any) is told to the `onTokenRejected` listeners, whatever the caller does with the
 *   answer: the token is no longer good there, and whoever trusts it from a cache forgets it.
 */
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { AppError, AuthenticationError, ForbiddenError, NotFoundError, UnavailableError, ValidationError } from '../../../src/errors.js';
import { SERVICE_VERSION } from '../version.js';
import {
  ForbiddenInstanceAddressError,
  InstanceAddressError,
  guardedLookup,
  isPublicAddress,
  systemResolver,
  type InstanceAddress,
  type Resolver,
} from './instance-address.js';
import { InstanceHealth } from './instance-health.js';

export interface InstanceClientOptions {
  /** Records every exchange (outages, metrics, health): ./instance-health.ts. */
  health?: InstanceHealth;
  /** RECSVC_ALLOW_INSECURE_INSTANCES=1: plain HTTP to any address (local tests only). */
  readonly allowInsecure?: boolean;
  /** Resolves instance names (tests stub it); the system resolver by default. */
  readonly resolver?: Resolver;
  /** TCP (and TLS) connection must be up within this. */
  readonly connectTimeoutMs?: number;
  /** Response headers must arrive within this after the request is sent. */
  readonly headersTimeoutMs?: number;
  /** Longest silence between two pieces of the body. */
  readonly bodyTimeoutMs?: number;
  /** The whole exchange, connection to last byte. */
  readonly requestTimeoutMs?: number;
  /** Largest response body read, bytes. */
  readonly maxResponseBytes?: number;
  /** Connections kept per instance. */
  readonly connectionsPerInstance?: number;
}

export const DEFAULT_INSTANCE_CLIENT_OPTIONS = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 5_000,
  bodyTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  maxResponseBytes: 2 * 1024 * 1024,
  connectionsPerInstance: 16,
} as const;

export type InstanceQuery = string | URLSearchParams | Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

export interface InstanceRequest {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  /** Absolute path on the instance (`/api/v1/timelines/home`), without the query. */
  readonly path: string;
  /** Query parameters; an array value is sent as the key repeated. */
  readonly query?: InstanceQuery;
  /**
   * A query string (without `?`) sent exactly as given, byte for byte: repeated keys, order,
   * percent-encoding and empty values as the caller wrote them (the proxy's case). Not with
   * `query`. A character that cannot be in a request target (control, space, `#`) is 400.
   */
  readonly rawQuery?: string;
  /** The caller's bearer token, sent as `Authorization: Bearer …`. */
  readonly token?: string;
  /** A JSON body (sent as application/json). */
  readonly body?: unknown;
  /** A body sent as it is, with its content type (the proxy's case). */
  readonly rawBody?: { readonly contentType: string; readonly data: string | Uint8Array };
  /** Further request headers (hop-by-hop, Host, Authorization and Content-Length are dropped). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * `success` (default): any answer but 2xx throws a typed error. `any`: every status is
   * returned (the proxy passes them on); transport failures still throw.
   */
  readonly accept?: 'success' | 'any';
  /** `error` (default): a 3xx is InstanceUnavailableError. `return`: it is returned, not followed. */
  readonly redirects?: 'error' | 'return';
  /** Cancels the request (with the caller's reason). */
  readonly signal?: AbortSignal;
}

/** The response headers a Mastodon client needs, when the instance sent them. */
export const FORWARDED_RESPONSE_HEADERS = [
  'link',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'content-type',
] as const;

export type ForwardedHeaderName = (typeof FORWARDED_RESPONSE_HEADERS)[number];

export interface InstanceResponse<T> {
  readonly status: number;
  /** The headers of FORWARDED_RESPONSE_HEADERS that were present. */
  readonly headers: Partial<Record<ForwardedHeaderName, string>>;
  /** Every response header, names lowercase (the proxy filters them itself). */
  readonly allHeaders: Readonly<Record<string, string | string[]>>;
  /** Parsed JSON (`null` for an empty body) from `request`, the bytes from `requestRaw`. */
  readonly body: T;
}

/** Why an instance could not be used. */
export type UnavailableReason =
  'unreachable' | 'timeout' | 'redirect' | 'server-error' | 'rate-limited' | 'too-large' | 'bad-response' | 'unexpected-status';

/** 503: the instance is unreachable, slow, failing, or answered something unusable. */
export class InstanceUnavailableError extends UnavailableError {
  constructor(
    readonly instance: string,
    readonly reason: UnavailableReason,
    message: string,
    /** The instance's status, when it answered. */
    readonly upstreamStatus?: number,
    retryAfter?: number,
  ) {
    super(`The social instance ${instance} ${message}`, retryAfter);
  }
}

/** 401 `Authentication required`: the instance does not accept the caller's token. */
export class InstanceTokenRejectedError extends AuthenticationError {
  constructor(
    readonly instance: string,
    readonly response: InstanceResponse<unknown>,
  ) {
    super(`The social instance ${instance} did not accept the access token`);
  }
}

/** 403 `Forbidden`: the token is valid but the instance refuses this action (scope, suspension). */
export class InstanceForbiddenError extends ForbiddenError {
  constructor(
    readonly instance: string,
    readonly response: InstanceResponse<unknown>,
  ) {
    super(`The social instance ${instance} refused the request for this token`);
  }
}

/** 404 `Resource not found`: the instance has no such thing (404 or 410). */
export class InstanceNotFoundError extends NotFoundError {
  constructor(
    readonly instance: string,
    readonly response: InstanceResponse<unknown>,
  ) {
    super(`The social instance ${instance} has no such resource`);
  }
}

/** 400 `Invalid request`: the instance refused the request's content (400, 422 and other 4xx). */
export class InstanceRequestError extends ValidationError {
  constructor(
    readonly instance: string,
    readonly response: InstanceResponse<unknown>,
  ) {
    super(`The social instance ${instance} refused the request (status ${response.status})`);
  }
}

/** Request headers never forwarded (hop-by-hop, framing, and the ones the client sets itself). */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'authorization',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'cookie',
]);

const USER_AGENT = `recsvc/${SERVICE_VERSION}`;

/** Told that an instance answered 401 to a request made with `token`. */
export type TokenRejectedListener = (instance: InstanceAddress, token: string) => void;

/** A pooled client for social instances; one per process, closed on shutdown. */
export class InstanceClient {
  readonly allowInsecure: boolean;
  private readonly settings: Required<Omit<InstanceClientOptions, 'resolver' | 'allowInsecure' | 'health'>>;
  private readonly agent: Agent;
  private readonly tokenRejectedListeners: TokenRejectedListener[] = [];
  /** What the service sees of each instance (./instance-health.ts). */
  readonly health: InstanceHealth;

  constructor(options: InstanceClientOptions = {}) {
    this.allowInsecure = options.allowInsecure === true;
    this.health = options.health ?? new InstanceHealth();
    this.settings = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_INSTANCE_CLIENT_OPTIONS.connectTimeoutMs,
      headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_INSTANCE_CLIENT_OPTIONS.headersTimeoutMs,
      bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_INSTANCE_CLIENT_OPTIONS.bodyTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_INSTANCE_CLIENT_OPTIONS.requestTimeoutMs,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_INSTANCE_CLIENT_OPTIONS.maxResponseBytes,
      connectionsPerInstance: options.connectionsPerInstance ?? DEFAULT_INSTANCE_CLIENT_OPTIONS.connectionsPerInstance,
    };
    this.agent = new Agent({
      connections: this.settings.connectionsPerInstance,
      pipelining: 1,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      headersTimeout: this.settings.headersTimeoutMs,
      bodyTimeout: this.settings.bodyTimeoutMs,
      maxHeaderSize: 32 * 1024,
      connect: this.allowInsecure
        ? { timeout: this.settings.connectTimeoutMs }
        : guardedConnector(this.settings.connectTimeoutMs, options.resolver ?? systemResolver),
    });
  }

  /** Sends a request and parses the JSON answer. */
  async request<T = unknown>(instance: InstanceAddress, request: InstanceRequest): Promise<InstanceResponse<T>> {
    const response = await this.exchange(instance, request);
    return { ...response, body: parseJson(instance, response) as T };
  }

  /** Sends a request and returns the answer's bytes as they came (the proxy's case). */
  async requestRaw(instance: InstanceAddress, request: InstanceRequest): Promise<InstanceResponse<Buffer>> {
    return this.exchange(instance, request);
  }

  /** Calls `listener` whenever an instance answers 401 to a request made with a token (see the file's comment). */
  onTokenRejected(listener: TokenRejectedListener): void {
    this.tokenRejectedListeners.push(listener);
  }

  /** Closes the pooled connections (waits for requests under way). */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private async exchange(instance: InstanceAddress, request: InstanceRequest): Promise<InstanceResponse<Buffer>> {
    const started = performance.now();
    const seconds = (): number => (performance.now() - started) / 1000;
    try {
      const response = await this.exchangeOnce(instance, request);
      this.health.record(instance.host, 'ok', seconds());
      return response;
    } catch (error) {
      // An outage is the instance failing us; its 4xx answers and a 429 are answers, and a caller that went away is neither.
      if (error instanceof InstanceUnavailableError && error.reason !== 'rate-limited') {
        this.health.record(instance.host, 'error', seconds(), error.reason);
      } else if (isInstanceAnswer(error)) {
        this.health.record(instance.host, 'ok', seconds());
      }
      throw error;
    }
  }

  private async exchangeOnce(instance: InstanceAddress, request: InstanceRequest): Promise<InstanceResponse<Buffer>> {
    if (!instance.secure && !this.allowInsecure) throw new InstanceAddressError('must be reached over HTTPS');
    const url = requestUrl(instance, request);
    const deadline = AbortSignal.timeout(this.settings.requestTimeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
    let answer: Dispatcher.ResponseData;
    try {
      const body = requestBody(request);
      answer = await this.agent.request({
        origin: instance.origin,
        path: url,
        method: request.method ?? 'GET',
        headers: requestHeaders(request),
        ...(body !== undefined ? { body } : {}),
        signal,
      });
    } catch (error) {
      throw transportError(instance, error, request.signal, deadline);
    }
    const status = answer.statusCode;
    if (status === 401 && request.token !== undefined) this.tellTokenRejected(instance, request.token);
    const allHeaders = plainHeaders(answer.headers);
    const headers = forwardedHeaders(allHeaders);
    if (status >= 300 && status < 400 && status !== 304 && request.redirects !== 'return') {
      release(answer);
      throw new InstanceUnavailableError(instance.host, 'redirect', `answered with a redirect (${status}), which is not followed`, status);
    }
    if (status >= 500 && request.accept !== 'any') {
      release(answer);
      throw new InstanceUnavailableError(instance.host, 'server-error', `failed (status ${status})`, status, retryAfterSeconds(allHeaders));
    }
    if (status === 429 && request.accept !== 'any') {
      release(answer);
      throw new InstanceUnavailableError(
        instance.host,
        'rate-limited',
        'is rate limiting this service',
        status,
        retryAfterSeconds(allHeaders),
      );
    }
    let body: Buffer;
    try {
      body = await readCapped(instance, answer, this.settings.maxResponseBytes);
    } catch (error) {
      throw transportError(instance, error, request.signal, deadline);
    }
    const response: InstanceResponse<Buffer> = { status, headers, allHeaders, body };
    if (request.accept !== 'any' && (status < 200 || status >= 300) && !(status >= 300 && status < 400)) {
      throw statusError(instance, { ...response, body: safeJson(body) });
    }
    return response;
  }

  private tellTokenRejected(instance: InstanceAddress, token: string): void {
    for (const listener of this.tokenRejectedListeners) {
      try {
        listener(instance, token);
      } catch {
        // A listener's failure is its own: the caller still gets the instance's answer.
      }
    }
  }
}

function isInstanceAnswer(error: unknown): boolean {
  return (
    error instanceof InstanceTokenRejectedError ||
    error instanceof InstanceForbiddenError ||
    error instanceof InstanceNotFoundError ||
    error instanceof InstanceRequestError ||
    (error instanceof InstanceUnavailableError && error.reason === 'rate-limited')
  );
}

/** The socket connector of secure mode: the guarded lookup, then the connected peer's address checked again. */
function guardedConnector(timeoutMs: number, resolver: Resolver): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs, lookup: guardedLookup(resolver) });
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (error || !socket) {
        callback(error ?? new Error('connection failed'), null);
        return;
      }
      const peer = socket.remoteAddress;
      if (peer === undefined || !isPublicAddress(peer)) {
        socket.destroy();
        callback(new ForbiddenInstanceAddressError(options.hostname), null);
        return;
      }
      callback(null, socket);
    });
}

/** The request target on the instance: the checked path and the query (see InstanceRequest). */
function requestUrl(instance: InstanceAddress, request: InstanceRequest): string {
  const { path } = request;
  if (!path.startsWith('/') || path.startsWith('//') || /[?#\\\s]/.test(path)) {
    throw new Error(`instance request path must be an absolute path without query: ${path}`);
  }
  const url = new URL(path, `${instance.origin}/`);
  if (url.origin !== instance.origin) throw new Error(`instance request path leaves the instance: ${path}`);
  const { query, rawQuery } = request;
  if (rawQuery !== undefined) {
    if (query !== undefined) throw new Error('instance request: query and rawQuery are exclusive');
    // eslint-disable-next-line no-control-regex -- control characters are what this refuses
    if (/[\u0000-\u0020\u007f#]|[^\u0000-\u00ff]/.test(rawQuery)) {
      throw new ValidationError('The query string contains a character not allowed in a URL');
    }
    return rawQuery === '' ? url.pathname : `${url.pathname}?${rawQuery}`;
  }
  if (query !== undefined) {
    const params = typeof query === 'string' || query instanceof URLSearchParams ? new URLSearchParams(query) : new URLSearchParams();
    if (typeof query !== 'string' && !(query instanceof URLSearchParams)) {
      for (const [key, value] of Object.entries(query)) {
        if (value === undefined) continue;
        if (Array.isArray(value)) for (const item of value as readonly string[]) params.append(key, item);
        else params.append(key, String(value));
      }
    }
    url.search = params.toString();
  }
  return url.pathname + url.search;
}

function requestHeaders(request: InstanceRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const lower = name.toLowerCase();
    if (!DROPPED_REQUEST_HEADERS.has(lower)) headers[lower] = value;
  }
  headers.accept ??= 'application/json';
  headers['user-agent'] ??= USER_AGENT;
  if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
  if (request.rawBody !== undefined) headers['content-type'] = request.rawBody.contentType;
  else if (request.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
  return headers;
}

function requestBody(request: InstanceRequest): string | Uint8Array | undefined {
  if (request.rawBody !== undefined) return request.rawBody.data;
  if (request.body !== undefined) return JSON.stringify(request.body);
  return undefined;
}

function plainHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string | string[]> {
  const plain: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) plain[name.toLowerCase()] = value;
  }
  return plain;
}

function forwardedHeaders(headers: Readonly<Record<string, string | string[]>>): Partial<Record<ForwardedHeaderName, string>> {
  const picked: Partial<Record<ForwardedHeaderName, string>> = {};
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) picked[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return picked;
}

/** Seconds to wait from Retry-After or Mastodon's X-RateLimit-Reset (an ISO time), when sent and sane. */
function retryAfterSeconds(headers: Readonly<Record<string, string | string[]>>): number | undefined {
  const retry = headers['retry-after'];
  if (typeof retry === 'string' && /^\d{1,6}$/.test(retry)) return Number(retry);
  const reset = headers['x-ratelimit-reset'];
  if (typeof reset === 'string') {
    const seconds = Math.ceil((Date.parse(reset) - Date.now()) / 1000);
    if (Number.isFinite(seconds) && seconds > 0 && seconds <= 86_400) return seconds;
  }
  return undefined;
}

/** Reads and discards a body not wanted (in the background, bounded), so the connection can be reused. */
function release(answer: Dispatcher.ResponseData): void {
  answer.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
}

/** Stops reading a body at once; the connection is closed. */
function drop(answer: Dispatcher.ResponseData): void {
  answer.body.on('error', () => undefined);
  answer.body.destroy();
}

/** Reads the body up to `limit` bytes; past it, drops the connection and throws 503 `too-large`. */
async function readCapped(instance: InstanceAddress, answer: Dispatcher.ResponseData, limit: number): Promise<Buffer> {
  const tooLarge = (): InstanceUnavailableError =>
    new InstanceUnavailableError(instance.host, 'too-large', `sent a response larger than ${limit} bytes`, answer.statusCode);
  const declared = Number(answer.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    drop(answer);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of answer.body) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > limit) {
      drop(answer);
      throw tooLarge();
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, total);
}

function parseJson(instance: InstanceAddress, response: InstanceResponse<Buffer>): unknown {
  if (response.body.length === 0) return null;
  try {
    return JSON.parse(response.body.toString('utf8')) as unknown;
  } catch {
    throw new InstanceUnavailableError(instance.host, 'bad-response', 'sent a response that is not JSON', response.status);
  }
}

function safeJson(body: Buffer): unknown {
  try {
    return body.length === 0 ? null : (JSON.parse(body.toString('utf8')) as unknown);
  } catch {
    return null;
  }
}

function statusError(instance: InstanceAddress, response: InstanceResponse<unknown>): AppError {
  switch (response.status) {
    case 401:
      return new InstanceTokenRejectedError(instance.host, response);
    case 403:
      return new InstanceForbiddenError(instance.host, response);
    case 404:
    case 410:
      return new InstanceNotFoundError(instance.host, response);
    default:
      if (response.status >= 400 && response.status < 500) return new InstanceRequestError(instance.host, response);
      return new InstanceUnavailableError(instance.host, 'unexpected-status', `answered with status ${response.status}`, response.status);
  }
}

/** Maps a failure of the exchange (connect, send, wait, read) to the error the caller gets. */
function transportError(instance: InstanceAddress, error: unknown, callerSignal: AbortSignal | undefined, deadline: AbortSignal): Error {
  if (error instanceof AppError) return error;
  const forbidden = findInChain(error, (e) => e instanceof InstanceAddressError);
  if (forbidden) return forbidden;
  if (callerSignal?.aborted) return callerSignal.reason instanceof Error ? callerSignal.reason : new Error('request aborted');
  const code = (findInChain(error, (e) => typeof (e as { code?: unknown }).code === 'string') as { code?: string } | undefined)?.code;
  if (
    deadline.aborted ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'ETIMEDOUT'
  ) {
    return new InstanceUnavailableError(instance.host, 'timeout', 'did not answer in time');
  }
  if (code === 'UND_ERR_INVALID_ARG') return new ValidationError('A request header for the social instance is invalid');
  return new InstanceUnavailableError(instance.host, 'unreachable', 'cannot be reached');
}

function findInChain(error: unknown, test: (error: Error) => boolean): Error | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (test(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The HTTP client of the experiment commands (undici). Every failure becomes one
 * CliError line with exit 3: the server unreachable or too slow, an error body
 * (`message` and `request_id`), or a success body that breaks the API's schema.
 * Success bodies are the envelope `{ data, meta }`; callers get `data`, checked
 * against the same TypeBox schema the server serialises it with.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { request, errors as undiciErrors } from 'undici';
import type { Readable } from 'node:stream';
import { EXIT } from '../../src/exit-codes.js';
import type { ErrorBody } from '../../src/schemas/common.schema.js';
import { findWireMismatch } from '../../src/schemas/wire-check.js';
import { readRateLimitHeaders, readRetryAfter, type RateLimitState } from '../../src/rate-limit/pacing.js';
import { ApiError, CliError } from './cli-error.js';
import { DEFAULT_SERVER, type ServerFlags } from './server-options.js';

const EXPERIMENTS = '/api/v1/analytics/experiments';

type Method = 'GET' | 'POST';

/** A thin client of one server: base URL, bearer token, timeout. */
export class ApiClient {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  #rateLimit: RateLimitState | undefined;

  constructor(flags: ServerFlags) {
    this.baseUrl = normaliseBase(flags.server ?? DEFAULT_SERVER);
    this.token = flags.token === '' ? undefined : flags.token;
    this.timeoutMs = Math.round((flags.timeout ?? 10) * 1000);
  }

  /**
   * The rate-limit window the server's latest answer reported (`X-RateLimit-*`), when it sent
   * one: of answers in the same window arriving out of order, the one with the fewest left.
   */
  get rateLimit(): RateLimitState | undefined {
    return this.#rateLimit;
  }

  /** GET a path; returns the envelope's `data`, checked against `schema`. */
  async get<S extends TSchema>(path: string, schema: S): Promise<Static<S>> {
    return (await this.json('GET', path, schema)).data;
  }

  /**
   * GET every page of a paged list: follows the `Link` header's rel="next" until there is
   * none, each page checked against `item`. The next page is asked of this client's own
   * server (the link's path from `/api/` on), whatever base the server writes its links on.
   */
  async getAll<S extends TSchema>(path: string, item: S): Promise<Static<S>[]> {
    const items: Static<S>[] = [];
    const seen = new Set<string>();
    let next: string | undefined = path;
    while (next !== undefined) {
      if (seen.has(next)) throw serverError(`${this.describe('GET', next)} links back to a page already read`, undefined);
      seen.add(next);
      const page = await this.json('GET', next, Type.Array(item));
      items.push(...page.data);
      next = nextPagePath(page.link);
    }
    return items;
  }

  /** POST a JSON body (or none); returns the envelope's `data`, checked against `schema`. */
  async post<S extends TSchema>(path: string, schema: S, body?: unknown): Promise<Static<S>> {
    return (await this.json('POST', path, schema, body)).data;
  }

  /** POST a JSON body to a route answering a bare body (the Mastodon-shaped posts routes); returns it, checked against `schema`. */
  async postBare<S extends TSchema>(path: string, schema: S, body: unknown): Promise<Static<S>> {
    return this.bare('POST', path, schema, body);
  }

  /** GET a route answering a bare body (the recommendations list); returns it, checked against `schema`. */
  async getBare<S extends TSchema>(path: string, schema: S): Promise<Static<S>> {
    return this.bare('GET', path, schema, undefined);
  }

  /** GET a streamed body (the JSON Lines export); the caller consumes it. */
  async stream(path: string): Promise<{ body: Readable; length: number | undefined }> {
    const response = await this.send('GET', path, undefined, true);
    const length = Number(response.headers['content-length']);
    return { body: response.body, length: Number.isFinite(length) ? length : undefined };
  }

  /** The experiments API path, with an optional id and sub-path. */
  static experimentsPath(id?: number | string, sub?: string): string {
    if (id === undefined) return EXPERIMENTS;
    return `${EXPERIMENTS}/${encodeURIComponent(String(id))}${sub === undefined ? '' : `/${sub}`}`;
  }

  private async bare<S extends TSchema>(method: Method, path: string, schema: S, body: unknown): Promise<Static<S>> {
    const response = await this.send(method, path, body, false);
    const parsed = await this.readJson(response.body, response.statusCode, response.headers);
    const mismatch = findWireMismatch(schema, parsed);
    if (mismatch !== undefined) {
      const where = `${this.describe(method, path)} answered a body that does not match the API: ${mismatch.field}: ${mismatch.message}`;
      throw serverError(`${where} (is ${this.baseUrl} a recsvc server of this version?)`, requestIdOf(response.headers));
    }
    return parsed;
  }

  private async json<S extends TSchema>(
    method: Method,
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<{ data: Static<S>; link: string | undefined }> {
    const response = await this.send(method, path, body, false);
    const parsed = await this.readJson(response.body, response.statusCode, response.headers);
    if (parsed === null || typeof parsed !== 'object' || !('data' in parsed)) {
      throw serverError(
        `${this.describe(method, path)} answered ${response.statusCode} without the {data, meta} envelope`,
        requestIdOf(response.headers),
      );
    }
    const data = parsed.data;
    const mismatch = findWireMismatch(schema, data);
    if (mismatch !== undefined) {
      const where = `${this.describe(method, path)} answered data that does not match the API: ${mismatch.field}: ${mismatch.message}`;
      throw serverError(`${where} (is ${this.baseUrl} a recsvc server of this version?)`, requestIdOf(response.headers));
    }
    const link = response.headers.link;
    return { data, link: typeof link === 'string' ? link : undefined };
  }

  private async send(method: Method, path: string, body: unknown, streaming: boolean) {
    const headers: Record<string, string> = { accept: streaming ? 'application/x-ndjson, application/json' : 'application/json' };
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response;
    try {
      response = await request(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: streaming ? 0 : this.timeoutMs,
      });
    } catch (error) {
      throw this.connectionError(error);
    }
    this.noteRateLimit(response.headers);
    if (response.statusCode >= 400) {
      const parsed = (await this.readJson(response.body, response.statusCode, response.headers).catch(
        () => null,
      )) as Partial<ErrorBody> | null;
      const retryAfter = readRetryAfter(headerText(response.headers['retry-after']), Date.now());
      throw this.httpError(method, path, response.statusCode, parsed, requestIdOf(response.headers), retryAfter);
    }
    return response;
  }

  private noteRateLimit(headers: Record<string, string | string[] | undefined>): void {
    const state = readRateLimitHeaders(headers);
    if (state === undefined) return;
    const last = this.#rateLimit;
    const sameWindow = last !== undefined && last.limit === state.limit && last.resetAtSeconds === state.resetAtSeconds;
    if (sameWindow && last.remaining < state.remaining) return;
    this.#rateLimit = state;
  }

  private async readJson(body: { text(): Promise<string> }, status: number, headers: Record<string, unknown>): Promise<unknown> {
    let text: string;
    try {
      text = await body.text();
    } catch (error) {
      throw this.connectionError(error);
    }
    try {
      return JSON.parse(text);
    } catch {
      throw serverError(`the server at ${this.baseUrl} answered ${status} with a body that is not JSON`, requestIdOf(headers));
    }
  }

  private httpError(
    method: Method,
    path: string,
    status: number,
    body: Partial<ErrorBody> | null,
    headerRequestId: string | undefined,
    headerRetryAfter: number | undefined,
  ): CliError {
    const requestId = body?.request_id ?? headerRequestId;
    if (body === null || typeof body !== 'object') {
      // Not the service's error body (a proxy in front answered): the status and Retry-After still count.
      return new ApiError(`${this.describe(method, path)} failed with HTTP ${status}`, status, undefined, '', {
        ...(requestId === undefined ? {} : { requestId }),
        ...(headerRetryAfter === undefined ? {} : { retryAfter: headerRetryAfter }),
      });
    }
    const field = body.field === undefined ? '' : ` (field ${body.field})`;
    const name = body.error ?? `HTTP ${status}`;
    const hint = status === 401 ? 'pass an admin token with --token or RECSVC_TOKEN' : undefined;
    const message = body.message ?? 'no message';
    // The body's retry_after (429), else the Retry-After header (a 503 shedding load or closing).
    const retryAfter = typeof body.retry_after === 'number' ? body.retry_after : headerRetryAfter;
    return new ApiError(`server: ${status} ${name}: ${message}${field}`, status, body.field ?? undefined, message, {
      ...(hint === undefined ? {} : { hint }),
      ...(requestId === undefined ? {} : { requestId }),
      ...(retryAfter === undefined ? {} : { retryAfter }),
    });
  }

  private connectionError(error: unknown): CliError {
    if (error instanceof CliError) return error;
    if (
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError ||
      error instanceof undiciErrors.ConnectTimeoutError
    ) {
      return new CliError(`the server at ${this.baseUrl} did not answer within ${this.timeoutMs / 1000}s (raise --timeout?)`, EXIT.server);
    }
    const code = errorCode(error);
    const reason = code ?? (error as Error).message;
    return new CliError(
      `cannot reach the server at ${this.baseUrl} (${reason}): is \`recsvc serve\` running? Set --server or RECSVC_SERVER`,
      EXIT.server,
    );
  }

  private describe(method: Method, path: string): string {
    return `${method} ${this.baseUrl}${path}`;
  }
}

function serverError(message: string, requestId: string | undefined, hint?: string): CliError {
  return new CliError(message, EXIT.server, { ...(hint === undefined ? {} : { hint }), ...(requestId === undefined ? {} : { requestId }) });
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function requestIdOf(headers: Record<string, unknown>): string | undefined {
  const value = headers['x-request-id'];
  return typeof value === 'string' ? value : undefined;
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && !code.startsWith('UND_ERR')) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function normaliseBase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`--server/RECSVC_SERVER: "${url}" is not a URL (expected e.g. ${DEFAULT_SERVER})`, EXIT.usage);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CliError(`--server/RECSVC_SERVER: "${url}" must be an http:// or https:// URL`, EXIT.usage);
  }
  return parsed.toString().replace(/\/+$/, '');
}

/** The path and query (from `/api/` on) of a Link header's rel="next", if it has one. */
export function nextPagePath(link: string | undefined): string | undefined {
  if (link === undefined) return undefined;
  for (const entry of link.split(/,\s*(?=<)/)) {
    const match = /^<([^>]*)>;\s*rel="next"$/.exec(entry.trim());
    if (match?.[1] === undefined) continue;
    let url: URL;
    try {
      url = new URL(match[1]);
    } catch {
      return undefined;
    }
    const at = url.pathname.indexOf('/api/');
    return at < 0 ? undefined : `${url.pathname.slice(at)}${url.search}`;
  }
  return undefined;
}

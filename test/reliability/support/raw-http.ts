/**
 * HTTP/1.1 written byte by byte on a node:net socket, so a test can send what
 * fetch refuses to (percent-encoded and absolute-form targets, NUL bytes, odd
 * methods, huge headers, lying lengths) and read whatever the server writes back,
 * parser-level answers included.
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  reason: string;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

export type RawOutcome =
  | { kind: 'response'; response: RawResponse }
  /** The server closed (or reset) the connection without a complete response. */
  | { kind: 'closed'; received: Buffer; error?: string }
  | { kind: 'timeout'; received: Buffer }
  | { kind: 'refused'; error: string };

export type HeaderList = ReadonlyArray<readonly [string, string]>;

export interface RawRequest {
  method: string;
  /** The request target exactly as written on the request line. */
  target: string;
  headers?: HeaderList;
  body?: string | Buffer;
  /** `Host` header value; default `127.0.0.1:<port>`; `null` sends none. */
  host?: string | null;
  /** Adds `Connection: close` unless the headers say otherwise (default true). */
  close?: boolean;
  /** Adds `Content-Length` for the body unless the headers carry a length or chunking (default true). */
  contentLength?: boolean;
}

const has = (headers: HeaderList, name: string): boolean => headers.some(([key]) => key.toLowerCase() === name);

/** The bytes of a request: request line, headers (Host, Content-Length, Connection added unless given), body. */
export function encodeRequest(port: number, request: RawRequest): Buffer {
  const headers: Array<readonly [string, string]> = [...(request.headers ?? [])];
  const body =
    request.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  if (request.host !== null && !has(headers, 'host')) headers.unshift(['Host', request.host ?? `127.0.0.1:${port}`]);
  const sendsLength = request.contentLength ?? true;
  if (sendsLength && request.body !== undefined && !has(headers, 'content-length') && !has(headers, 'transfer-encoding')) {
    headers.push(['Content-Length', String(body.length)]);
  }
  if ((request.close ?? true) && !has(headers, 'connection')) headers.push(['Connection', 'close']);
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** Sends one request on a fresh connection and reads one response. */
export async function sendRaw(
  port: number,
  request: RawRequest | Buffer,
  options: { timeoutMs?: number; method?: string } = {},
): Promise<RawOutcome> {
  const bytes = Buffer.isBuffer(request) ? request : encodeRequest(port, request);
  const method = options.method ?? (Buffer.isBuffer(request) ? 'GET' : request.method);
  const socket = await openSocket(port).catch((error: Error) => error);
  if (socket instanceof Error) return { kind: 'refused', error: socket.message };
  const reader = new ResponseReader(socket, method);
  socket.write(bytes, () => undefined);
  return reader.next(options.timeoutMs ?? 10_000).finally(() => socket.destroy());
}

/** A connected socket to 127.0.0.1:port. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.removeListener('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * Reads consecutive responses from a socket (keep-alive aware): `next()` resolves with
 * the next complete response, or with how the connection ended.
 */
export class ResponseReader {
  private buffer = Buffer.alloc(0);
  private ended = false;
  private endError: string | undefined;
  private wake: (() => void) | undefined;

  constructor(
    readonly socket: Socket,
    private method = 'GET',
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake?.();
    });
    socket.on('error', (error: Error & { code?: string }) => {
      this.endError = error.code ?? error.message;
      this.finish();
    });
    socket.on('close', () => this.finish());
    socket.on('end', () => this.finish());
  }

  /** True once the server closed or reset the connection. */
  get closed(): boolean {
    return this.ended;
  }

  /** The method of the next request (HEAD responses have no body). */
  expect(method: string): this {
    this.method = method;
    return this;
  }

  /** The next response, or how the connection ended, within `timeoutMs`. */
  async next(timeoutMs: number): Promise<RawOutcome> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponse(this.buffer, this.method, this.ended);
      if (parsed) {
        this.buffer = this.buffer.subarray(parsed.consumed);
        // An interim answer (100 Continue) precedes the real one.
        if (parsed.response.status >= 100 && parsed.response.status < 200 && parsed.response.status !== 101) continue;
        return { kind: 'response', response: parsed.response };
      }
      if (this.ended) return { kind: 'closed', received: this.buffer, ...(this.endError ? { error: this.endError } : {}) };
      const left = deadline - Date.now();
      if (left <= 0) return { kind: 'timeout', received: this.buffer };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** Resolves with true when the server closes the connection within `timeoutMs`. */
  async waitClosed(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(100, deadline - Date.now()));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    return this.ended;
  }

  private finish(): void {
    this.ended = true;
    this.wake?.();
  }
}

/** Parses one response at the start of `buffer`; undefined while incomplete. */
export function parseResponse(
  buffer: Buffer,
  method: string,
  connectionEnded: boolean,
): { response: RawResponse; consumed: number } | undefined {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const lines = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
  const statusLine = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0] ?? '');
  if (!statusLine) return undefined;
  const status = Number(statusLine[1]);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const start = headEnd + 4;
  const response = (body: Buffer): RawResponse => ({ status, reason: statusLine[2] ?? '', headers, body });
  if (method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200)) {
    return { response: response(Buffer.alloc(0)), consumed: start };
  }
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const chunked = decodeChunked(buffer, start);
    return chunked ? { response: response(chunked.body), consumed: chunked.end } : undefined;
  }
  const length = headers['content-length'];
  if (length !== undefined) {
    const end = start + Number(length);
    return buffer.length >= end ? { response: response(buffer.subarray(start, end)), consumed: end } : undefined;
  }
  // No length and no chunking: the body runs until the connection closes.
  return connectionEnded ? { response: response(buffer.subarray(start)), consumed: buffer.length } : undefined;
}

function decodeChunked(buffer: Buffer, from: number): { body: Buffer; end: number } | undefined {
  const parts: Buffer[] = [];
  let at = from;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1').split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size)) return undefined;
    if (size === 0) {
      // The last chunk, then optional trailers, then an empty line.
      const trailerEnd = buffer.indexOf('\r\n\r\n', lineEnd);
      return trailerEnd < 0 ? undefined : { body: Buffer.concat(parts), end: trailerEnd + 4 };
    }
    const dataStart = lineEnd + 2;
    if (buffer.length < dataStart + size + 2) return undefined;
    parts.push(buffer.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}

/** The body parsed as JSON, or undefined when it is not JSON. */
export function jsonBody(response: RawResponse): unknown {
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** One line describing an outcome, for failure messages. */
export function describeOutcome(outcome: RawOutcome): string {
  switch (outcome.kind) {
    case 'response':
      return `${outcome.response.status} ${outcome.response.body.toString('utf8').slice(0, 300)}`;
    case 'closed':
      return `connection closed without a response${outcome.error ? ` (${outcome.error})` : ''}${outcome.received.length ? `: ${outcome.received.toString('latin1').slice(0, 200)}` : ''}`;
    case 'timeout':
      return `no response in time${outcome.received.length ? `: ${outcome.received.toString('latin1').slice(0, 200)}` : ''}`;
    case 'refused':
      return `connection refused (${outcome.error})`;
  }
}

/** A fetch Response read into the same shape as a raw one (for the spec checks). */
export async function readFetchResponse(response: Response): Promise<RawResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, reason: response.statusText, headers, body: Buffer.from(await response.arrayBuffer()) };
}

/**
 * Slow clients and idle connections against a real `recsvc serve` with short
 * timeouts (RECSVC_REQUEST_TIMEOUT_MS, RECSVC_HEADERS_TIMEOUT_MS,
 * RECSVC_CONNECTION_TIMEOUT_MS, RECSVC_KEEP_ALIVE_TIMEOUT_MS, RECSVC_MAX_CONNECTIONS):
 * a trickled body or trickled headers are cut (408 in the spec's body, or the
 * connection closed), idle connections are closed, thousands of idle sockets do not
 * stop a new request from being answered, and load shedding answers 503 in the
 * spec's body with Retry-After while health stays up.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseReader, describeOutcome, encodeRequest, openSocket, sendRaw, type RawOutcome } from './support/raw-http.js';
import { killStartedServers, mintToken, startRecsvc, type RecsvcServer } from './support/recsvc-server.js';
import { specProblems } from './support/spec-conformance.js';
import { byMode, sleep } from './support/suite-settings.js';

const TIMEOUTS = {
  RECSVC_REQUEST_TIMEOUT_MS: '2000',
  RECSVC_HEADERS_TIMEOUT_MS: '1500',
  RECSVC_CONNECTION_TIMEOUT_MS: '2000',
  RECSVC_KEEP_ALIVE_TIMEOUT_MS: '1000',
  RECSVC_MAX_CONNECTIONS: '1000',
};
/** Longest timeout above plus Node's 1 s check interval, with room for a loaded 2-core machine. */
const CUT_DEADLINE_MS = 12_000;
const IDLE_SOCKETS = byMode(3_000, 15_000);

let server: RecsvcServer;
let token: string;

beforeAll(async () => {
  server = await startRecsvc({ env: { ...TIMEOUTS, RECSVC_RATE_LIMIT: 'off' } });
  token = await mintToken(server.dbPath);
});

afterAll(killStartedServers);

/** Writes `bytes` one at a time every `everyMs` until the socket closes or the bytes run out. */
function trickle(socket: Socket, bytes: Buffer, everyMs: number): () => void {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= bytes.length) return clearInterval(timer);
    socket.write(bytes.subarray(at, at + 1), () => undefined);
    at += 1;
  }, everyMs);
  return () => clearInterval(timer);
}

/** Problems unless the connection ended within the deadline, with at most a conforming `allowed` response first. */
async function cutProblems(label: string, reader: ResponseReader, allowed: number[]): Promise<string[]> {
  const problems: string[] = [];
  const deadline = Date.now() + CUT_DEADLINE_MS;
  for (;;) {
    const outcome: RawOutcome = await reader.next(Math.max(1, deadline - Date.now()));
    if (outcome.kind === 'closed') return problems;
    if (outcome.kind === 'timeout') return [...problems, `${label}: still open after ${CUT_DEADLINE_MS} ms`];
    if (outcome.kind !== 'response') return [...problems, `${label}: ${describeOutcome(outcome)}`];
    if (!allowed.includes(outcome.response.status)) problems.push(`${label}: answered ${describeOutcome(outcome).slice(0, 200)}`);
    for (const p of specProblems(outcome.response)) problems.push(`${label}: ${outcome.response.status} ${p}`);
  }
}

describe('slow clients and idle connections', () => {
  it('cuts a trickled body with 408 or a close, for callers with and without a token', async () => {
    const problems: string[] = [];
    for (const [who, headers] of [
      ['with a token', [['Authorization', `Bearer ${token}`]]],
      ['anonymous', []],
    ] as Array<[string, Array<[string, string]>]>) {
      const body = Buffer.from(
        JSON.stringify({ user_id: 'slow', post_id: '1', action_type: 'favorite', context: { pad: 'x'.repeat(200) } }),
      );
      const head = encodeRequest(server.port, {
        method: 'POST',
        target: '/api/v1/interactions',
        headers: [...headers, ['Content-Type', 'application/json'], ['Content-Length', String(body.length)]],
        close: false,
      });
      const socket = await openSocket(server.port);
      const reader = new ResponseReader(socket, 'POST');
      socket.write(head);
      const stop = trickle(socket, body, 250);
      // The anonymous caller may be told 401 early; the trickle must still not hold the connection.
      problems.push(...(await cutProblems(`slow body ${who}`, reader, who === 'anonymous' ? [408, 401] : [408])));
      stop();
      socket.destroy();
    }
    expect(problems).toEqual([]);
  }, 60_000);

  it('cuts trickled headers with 408 or a close', async () => {
    const socket = await openSocket(server.port);
    const reader = new ResponseReader(socket, 'GET');
    const stop = trickle(socket, Buffer.from(`GET /api/v1/posts HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'s'.repeat(400)}`), 250);
    const problems = await cutProblems('slow headers', reader, [408]);
    stop();
    socket.destroy();
    expect(problems).toEqual([]);
  }, 30_000);

  it('closes a keep-alive connection left idle, and a connection that never sends anything', async () => {
    const idleAfterRequest = await openSocket(server.port);
    const reader = new ResponseReader(idleAfterRequest, 'GET');
    idleAfterRequest.write(encodeRequest(server.port, { method: 'GET', target: '/health', close: false }));
    const first = await reader.next(10_000);
    expect(first.kind === 'response' ? first.response.status : describeOutcome(first)).toBe(200);
    const silent = await openSocket(server.port);
    const silentReader = new ResponseReader(silent, 'GET');
    const [keepAliveClosed, silentClosed] = await Promise.all([
      reader.waitClosed(CUT_DEADLINE_MS),
      silentReader.waitClosed(CUT_DEADLINE_MS),
    ]);
    idleAfterRequest.destroy();
    silent.destroy();
    expect({ keepAliveClosed, silentClosed }).toEqual({ keepAliveClosed: true, silentClosed: true });
  }, 30_000);

  it(`answers new requests while ${IDLE_SOCKETS} idle sockets are open, and closes the idle ones`, async () => {
    const idle: ResponseReader[] = [];
    let refused = 0;
    for (let i = 0; i < IDLE_SOCKETS; i += 100) {
      const opened = await Promise.all(
        Array.from({ length: Math.min(100, IDLE_SOCKETS - i) }, () =>
          openSocket(server.port).then(
            (socket) => new ResponseReader(socket, 'GET'),
            () => undefined,
          ),
        ),
      );
      for (const reader of opened)
        if (reader) idle.push(reader);
        else refused += 1;
    }
    const problems: string[] = [];
    let answered = false;
    const deadline = Date.now() + CUT_DEADLINE_MS * 2;
    const seen: string[] = [];
    while (!answered && Date.now() < deadline) {
      const outcome = await sendRaw(server.port, { method: 'GET', target: '/api/v1/posts?limit=1' }, { timeoutMs: 5_000 });
      seen.push(outcome.kind === 'response' ? String(outcome.response.status) : outcome.kind);
      if (outcome.kind === 'response') {
        if (outcome.response.status === 200) answered = true;
        else if (outcome.response.status !== 503) problems.push(`new request: ${describeOutcome(outcome).slice(0, 200)}`);
        for (const p of specProblems(outcome.response)) problems.push(`new request ${outcome.response.status}: ${p}`);
      }
      if (!answered) await sleep(250);
    }
    await Promise.all(idle.map((reader) => reader.waitClosed(Math.max(1, deadline - Date.now()))));
    const stillOpen = idle.filter((reader) => !reader.closed).length;
    for (const reader of idle) reader.socket.destroy();
    console.log(
      `idle sockets: ${IDLE_SOCKETS} opened (${refused} refused at connect), ${stillOpen} still open at the end; new requests saw ${seen.slice(0, 20).join(' ')}${seen.length > 20 ? ' …' : ''}`,
    );
    expect(problems).toEqual([]);
    expect(answered, `new requests saw ${seen.join(' ')}`).toBe(true);
    expect(stillOpen).toBe(0);
  }, 120_000);

  it('sheds load with 503 in the spec body and Retry-After, and keeps health answered', async () => {
    // A heap ceiling of 1 MB: every sample is over it, so shedding is certain.
    const shedding = await startRecsvc({ shedding: true, env: { RECSVC_MAX_HEAP_MB: '1', RECSVC_RATE_LIMIT: 'off' } });
    const problems: string[] = [];
    let shed = 0;
    for (let i = 0; i < 20 && shed === 0; i++) {
      const outcome = await sendRaw(shedding.port, { method: 'GET', target: '/api/v1/posts?limit=1' });
      if (outcome.kind === 'response' && outcome.response.status === 503) {
        shed += 1;
        for (const p of specProblems(outcome.response)) problems.push(`503: ${p}`);
      } else await sleep(250);
    }
    const health = await sendRaw(shedding.port, { method: 'GET', target: '/health' });
    await shedding.stop();
    expect(problems).toEqual([]);
    expect(shed, 'no request was shed with a 1 MB heap ceiling').toBeGreaterThan(0);
    expect(health.kind === 'response' ? health.response.status : describeOutcome(health)).toBe(200);
  }, 60_000);
});

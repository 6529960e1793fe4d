/**
 * SIGTERM with many keep-alive clients sending back to back: every request a client has
 * fully sent gets an answer with `Connection: close` — the response it was waiting for, or
 * 503 with Retry-After once the server is closing — and no connection is reset or closed
 * under a request. Before, the shutdown closed connections it saw idle while the next request
 * was already on its way in, and the listener dropped connections still in its queue (88 of
 * 128 clients saw a reset).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ResponseReader, describeOutcome, encodeRequest, openSocket, type RawOutcome } from './support/raw-http.js';
import { killStartedServers, startRecsvc } from './support/recsvc-server.js';
import { sleep } from './support/suite-settings.js';

const CLIENTS = 128;
const DEADLINE_MS = 20_000;

interface ClientLog {
  answered: number;
  /** Statuses of the responses that came with `Connection: close`. */
  closedWith: number[];
  /** Outcomes other than a response to a fully sent request. */
  lost: string[];
  /** The last response's Retry-After, when it was a 503. */
  retryAfter: string | undefined;
}

/** Sends requests back to back on one connection until the server says close (or drops it). */
async function client(port: number, established: () => void): Promise<ClientLog> {
  const log: ClientLog = { answered: 0, closedWith: [], lost: [], retryAfter: undefined };
  const socket = await openSocket(port);
  socket.on('error', () => undefined);
  const reader = new ResponseReader(socket, 'GET');
  const request = encodeRequest(port, { method: 'GET', target: '/api/v1/posts?limit=1', close: false });
  try {
    for (;;) {
      const sent = await new Promise<boolean>((resolve) => socket.write(request, (error) => resolve(!error)));
      if (!sent) return log; // the server had closed before the request left: nothing was sent
      const outcome: RawOutcome = await reader.next(DEADLINE_MS);
      if (outcome.kind !== 'response') {
        log.lost.push(`${describeOutcome(outcome)} after ${log.answered} answers`);
        return log;
      }
      log.answered += 1;
      if (log.answered === 1) established();
      if (/close/i.test(outcome.response.headers.connection ?? '')) {
        log.closedWith.push(outcome.response.status);
        log.retryAfter = outcome.response.headers['retry-after'];
        return log;
      }
    }
  } finally {
    socket.destroy();
  }
}

afterAll(killStartedServers);

describe('SIGTERM with keep-alive clients', () => {
  it('answers every fully sent request (503 + Connection: close once closing), resets none, exits 0', async () => {
    const server = await startRecsvc({ args: ['--rate-limit', 'off'] });
    // Keep-alive clients: each has had an answer on its connection before the signal.
    let established = 0;
    const clients = Array.from({ length: CLIENTS }, () => client(server.port, () => (established += 1)));
    while (established < CLIENTS) await sleep(20);
    await sleep(200);
    const code = await server.stop('SIGTERM');
    const logs = await Promise.all(clients);
    const lost = logs.flatMap((l) => l.lost);
    const closing = logs.flatMap((l) => l.closedWith);
    console.log(
      `SIGTERM with ${CLIENTS} keep-alive clients: ${logs.reduce((n, l) => n + l.answered, 0)} answered, ` +
        `${closing.filter((s) => s === 503).length} told 503 + close, ${lost.length} lost`,
    );
    expect(code, server.output()).toBe(0);
    expect(lost, [...new Set(lost)].slice(0, 5).join('\n')).toEqual([]);
    // Every client was told to close (no connection was just dropped): its request in flight answered, or a later one refused with 503.
    expect(closing).toHaveLength(CLIENTS);
    expect(closing.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    for (const l of logs) if (l.closedWith[0] === 503) expect(l.retryAfter).toMatch(/^\d+$/);
  }, 120_000);
});

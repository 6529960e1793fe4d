/**
 * One client cannot lock everyone out by holding idle connections: with
 * RECSVC_MAX_CONNECTIONS=100, a client (127.0.0.2) opening 100 idle sockets keeps at most
 * its per-client share (an eighth: 12) — each connection past it recycles its own oldest idle
 * one — and 20 other clients (127.0.0.3 …) are all answered. Before, the hog's sockets filled
 * the server's limit and 0 of 20 new clients were served. Every socket here connects to
 * 127.0.0.1 from its own loopback source address, which the server sees as the client.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ResponseReader, describeOutcome, encodeRequest } from './support/raw-http.js';
import { killStartedServers, startRecsvc } from './support/recsvc-server.js';

const MAX = 100;
const SHARE = Math.floor(MAX / 8);
const NEWCOMERS = 20;

/** A connection to the server from `from` (a 127/8 address), or undefined when refused or closed at once. */
function connectFrom(port: number, from: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from });
    socket.once('connect', () => resolve(socket));
    socket.once('error', () => resolve(undefined));
  });
}

afterAll(killStartedServers);

describe('a per-client connection cap', () => {
  it('keeps one client holding idle sockets from locking out everyone else', async () => {
    const server = await startRecsvc({ args: ['--rate-limit', 'off'], env: { RECSVC_MAX_CONNECTIONS: String(MAX) } });
    const hog: ResponseReader[] = [];
    for (let i = 0; i < MAX; i++) {
      const socket = await connectFrom(server.port, '127.0.0.2');
      if (socket) hog.push(new ResponseReader(socket, 'GET'));
    }
    const outcomes = await Promise.all(
      Array.from({ length: NEWCOMERS }, async (_, i) => {
        const socket = await connectFrom(server.port, `127.0.0.${3 + i}`);
        if (!socket) return 'refused';
        const reader = new ResponseReader(socket, 'GET');
        socket.write(encodeRequest(server.port, { method: 'GET', target: '/api/v1/posts?limit=1' }));
        const outcome = await reader.next(20_000);
        socket.destroy();
        return outcome.kind === 'response' ? String(outcome.response.status) : describeOutcome(outcome);
      }),
    );
    // The hog's own sockets past its share were closed by the server (each new one recycled its oldest idle one).
    const open = hog.filter((reader) => !reader.closed).length;
    for (const reader of hog) reader.socket.destroy();
    await server.stop();
    expect(outcomes).toEqual(Array.from({ length: NEWCOMERS }, () => '200'));
    expect(open).toBeLessThanOrEqual(SHARE);
  }, 120_000);
});

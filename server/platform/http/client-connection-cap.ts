/**
 * A cap on the connections one client (one remote address) holds at once, under the server's
 * own RECSVC_MAX_CONNECTIONS: without it, one client opening idle sockets up to the server's
 * limit locks every other client out (new connections are refused at accept). A client at its
 * cap that connects again gets its new connection, and its oldest idle one (no request being
 * answered) is closed to make room; when none of its connections is idle, the new one is
 * closed at once. Behind a reverse proxy every connection comes from the proxy: there the
 * proxy is the one client, so keep the cap above its pool (or limit per client in the proxy).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ClientConnectionCap {
  /** Connections closed because their client was over its cap (idle ones recycled, or new ones refused). */
  readonly closed: { recycled: number; refused: number };
}

/** Enforces at most `perClient` open connections per remote address on `server`. */
export function capConnectionsPerClient(server: Server, perClient: number): ClientConnectionCap {
  const byClient = new Map<string, Set<Socket>>();
  const inFlight = new Map<Socket, number>();
  const closed = { recycled: 0, refused: 0 };
  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress ?? '';
    let held = byClient.get(client);
    if (held === undefined) byClient.set(client, (held = new Set()));
    if (held.size >= perClient) {
      // Sets keep insertion order: the first idle one is the oldest.
      const idle = [...held].find((s) => (inFlight.get(s) ?? 0) === 0);
      if (idle === undefined) {
        closed.refused += 1;
        socket.destroy();
        return;
      }
      closed.recycled += 1;
      held.delete(idle);
      idle.destroy();
    }
    held.add(socket);
    socket.once('close', () => {
      inFlight.delete(socket);
      const set = byClient.get(client);
      set?.delete(socket);
      if (set?.size === 0) byClient.delete(client);
    });
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      if (left > 0) inFlight.set(socket, left);
      else inFlight.delete(socket);
    });
  });
  return { closed };
}

/**
 * Closing an HTTP server's keep-alive connections without cutting off a request already on
 * its way in. Node's `server.close()` (and fastify's) closes every connection it sees idle at
 * once; a keep-alive client's next request may then already be in the socket, unread, and the
 * close resets it. Here a shutdown instead (1) marks every response still to be written with
 * `Connection: close`, so its client sends nothing more on that connection, (2) lets requests
 * that arrive be answered (the app's 503 while shutting down, also with `Connection: close`),
 * and (3) closes an idle connection only once it has stayed idle, with no byte read, for a
 * few sweeps in a row: anything that had arrived in between would have been read.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How often idle connections are looked at during a drain. */
const SWEEP_MS = 50;
/**
 * Sweeps a connection must stay idle and silent before it is closed: several, so that the
 * event loop has polled the socket more than once in between (a connection accepted during
 * one poll is first read at a later one).
 */
const QUIET_SWEEPS = 4;

/** Event-loop turns given to accepting queued connections before the listener closes (each turn polls once). */
const ACCEPT_TURNS = 3;

interface Connection {
  responses: Set<ServerResponse>;
  bytesRead: number;
  quietSweeps: number;
}

export interface ConnectionDrainer {
  /** Starts draining: call before closing the server; resolves nothing, the server's close says when all are gone. */
  start(): void;
  /**
   * Resolves after a few turns of the event loop, each of which accepts the connections waiting
   * in the listen queue: closing the listener resets those, and their clients may already have
   * sent a request. Call after start() and before closing the server.
   */
  acceptWaiting(): Promise<void>;
  /** Stops the sweeps (after the server closed, or when the grace period cut the rest). */
  stop(): void;
  /** Open connections, for tests and logs. */
  readonly size: number;
}

const markClose = (response: ServerResponse): void => {
  if (!response.headersSent) response.setHeader('Connection', 'close');
};

/** Watches `server`'s connections from now on (call before it listens). */
export function connectionDrainer(server: Server): ConnectionDrainer {
  const connections = new Map<Socket, Connection>();
  let draining = false;
  let sweeper: NodeJS.Timeout | undefined;
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { responses: new Set(), bytesRead: 0, quietSweeps: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const connection = connections.get(request.socket);
    if (connection === undefined) return;
    connection.responses.add(response);
    if (draining) markClose(response);
    response.once('close', () => connection.responses.delete(response));
  });
  const sweep = (): void => {
    for (const [socket, connection] of connections) {
      if (connection.responses.size > 0 || socket.bytesRead !== connection.bytesRead) {
        connection.bytesRead = socket.bytesRead;
        connection.quietSweeps = 0;
      } else if (++connection.quietSweeps >= QUIET_SWEEPS) {
        socket.destroy();
      }
    }
  };
  return {
    start() {
      if (draining) return;
      draining = true;
      // Node's close() would close the idle ones at once, the reset this module avoids; the sweeps do it instead.
      server.closeIdleConnections = () => undefined;
      for (const connection of connections.values()) {
        for (const response of connection.responses) markClose(response);
      }
      sweeper = setInterval(sweep, SWEEP_MS);
    },
    async acceptWaiting() {
      for (let turn = 0; turn < ACCEPT_TURNS; turn++) await new Promise((resolve) => setImmediate(resolve));
    },
    stop() {
      clearInterval(sweeper);
    },
    get size() {
      return connections.size;
    },
  };
}

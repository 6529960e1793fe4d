/**
 * A stand-in Mastodon instance on 127.0.0.1 that records every request it receives and
 * answers what the test sets: for proxy tests that must see exactly which method, headers,
 * query and body bytes arrive. `verify_credentials` answers account 42 (eve) — for any token,
 * or only for `acceptToken` when set (then any other token is 401).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface RecordingInstance {
  /** `127.0.0.1:<port>`, for X-Social-Instance. */
  host: string;
  /** The requests received, in order (verify_credentials only with `recordVerification`). */
  seen: SeenRequest[];
  /** What every other request is answered. */
  answer: { status: number; headers: Record<string, string | string[]>; body: string };
  close(): Promise<void>;
}

export interface RecordingInstanceOptions {
  /** The answer until a test sets another (default: 200, `{}` as JSON). */
  answer?: RecordingInstance['answer'];
  /** The only token verify_credentials accepts (default: any). */
  acceptToken?: string;
  /** Record verify_credentials requests too (default: false). */
  recordVerification?: boolean;
}

const VERIFY_CREDENTIALS = '/api/v1/accounts/verify_credentials';
const EVE = { id: '42', username: 'eve', acct: 'eve', display_name: 'Eve', bot: false, locked: false };

export async function startRecordingInstance(options: RecordingInstanceOptions = {}): Promise<RecordingInstance> {
  const instance: RecordingInstance = {
    host: '',
    seen: [],
    answer: options.answer ?? { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{}' },
    close: async () => undefined,
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const seen = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) };
      if (request.url === VERIFY_CREDENTIALS) {
        if (options.recordVerification === true) instance.seen.push(seen);
        if (options.acceptToken !== undefined && request.headers.authorization !== `Bearer ${options.acceptToken}`) {
          response.writeHead(401, { 'content-type': 'application/json' });
          response.end('{"error":"The access token is invalid"}');
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(EVE));
        return;
      }
      instance.seen.push(seen);
      const { status, headers, body } = instance.answer;
      response.writeHead(status, headers);
      // Node sends no body on a HEAD answer whatever is written here.
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  instance.host = `127.0.0.1:${port}`;
  instance.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return instance;
}

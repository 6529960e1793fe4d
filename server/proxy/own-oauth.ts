/**
 * Drop-in mode and the service's own OAuth: a client that takes the service's address for its
 * instance builds Mastodon's OAuth URLs on it (masto.js posts to `/oauth/token` and
 * `/oauth/revoke`; apps send the user to `/oauth/authorize`). Those calls belong to the
 * instance, except when they name a client registered with the service itself: then they are
 * the service's (`/api/v1/oauth/…`), and forwarding them would only get the instance's
 * "unknown client". The client id is read where the client puts it: the query (authorize), HTTP
 * Basic or the form or JSON body (token, revoke).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Mastodon's OAuth paths and the service's endpoints they stand for. */
const OWN_ENDPOINTS: Readonly<Record<string, { method: 'GET' | 'POST'; target: string }>> = {
  '/oauth/authorize': { method: 'GET', target: '/api/v1/oauth/authorize' },
  '/oauth/token': { method: 'POST', target: '/api/v1/oauth/token' },
  '/oauth/revoke': { method: 'POST', target: '/api/v1/oauth/revoke' },
};

/** Headers of the service's OAuth answers passed back. */
const ANSWER_HEADERS = ['content-type', 'cache-control', 'pragma', 'www-authenticate'] as const;

/** The client id a request names: in the query, HTTP Basic, or a form or JSON body. */
export function clientIdOf(request: FastifyRequest, query: string): string | undefined {
  const fromQuery = new URLSearchParams(query).get('client_id');
  if (fromQuery !== null) return fromQuery;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      try {
        return decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      } catch {
        return undefined;
      }
    }
  }
  if (!Buffer.isBuffer(request.body)) return undefined;
  const text = request.body.toString('utf8');
  const type = request.headers['content-type'] ?? '';
  if (/^application\/json/i.test(type)) {
    try {
      const body = JSON.parse(text) as { client_id?: unknown };
      return typeof body.client_id === 'string' ? body.client_id : undefined;
    } catch {
      return undefined;
    }
  }
  return new URLSearchParams(text).get('client_id') ?? undefined;
}

/**
 * Answers a drop-in request on Mastodon's OAuth paths that names one of the service's own
 * clients: authorize is redirected to the service's, token and revoke are answered by the
 * service's endpoints (in-process, with the caller's address for their rate limits). Undefined
 * when the request is the instance's.
 */
export async function answerOwnOAuth(
  isOwnClient: ((clientId: string) => Promise<boolean>) | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  query: string,
): Promise<FastifyReply | undefined> {
  const endpoint = OWN_ENDPOINTS[path];
  if (isOwnClient === undefined || endpoint === undefined || request.method !== endpoint.method) return undefined;
  const clientId = clientIdOf(request, query);
  if (clientId === undefined || !(await isOwnClient(clientId))) return undefined;
  const target = `${endpoint.target}${query === '' ? '' : `?${query}`}`;
  if (endpoint.method === 'GET') return reply.redirect(target, 302);
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'authorization', 'accept'] as const) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const answer = await request.server.inject({
    method: 'POST',
    url: target,
    headers,
    ...(Buffer.isBuffer(request.body) ? { payload: request.body } : {}),
    remoteAddress: request.ip,
  });
  for (const name of ANSWER_HEADERS) {
    const value = answer.headers[name];
    if (value !== undefined) void reply.header(name, value);
  }
  return reply.code(answer.statusCode).send(answer.rawPayload);
}

/**
 * FASP's authentication of requests and signing of responses, for the routes of the FASP
 * plugin only: bodies are kept as raw bytes (the digest is over them), every request must
 * carry a valid signature by a registered server (keyid: the server id this service gave it),
 * else 401 in the service's error body; every response to a verified request is signed with
 * this service's key for that server (Mastodon refuses unsigned answers, 204s included).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { signFaspResponse, verifyFaspRequest } from '../../src/fasp/index.js';
import { AuthenticationError, ValidationError } from '../../src/errors.js';
import { publicBaseUrl } from '../platform/http/public-url.js';
import type { FaspService } from './fasp.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The registered server a FASP request is verified to come from. */
    faspServerId: string | undefined;
  }
}

/** The largest FASP request body (FASP requests to a provider carry at most small JSON objects). */
const FASP_BODY_LIMIT = 65_536;

/** Installs the raw-body parser and the verify/sign hooks in the (encapsulated) FASP plugin. */
export function installFaspAuth(app: FastifyInstance, service: FaspService, now: () => number): void {
  app.decorateRequest('faspServerId', undefined);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: FASP_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );
  app.addHook('preValidation', async (request) => {
    const result = await verifyFaspRequest(
      { method: request.method, targetUri: targetUri(request), headers: request.headers, body: rawBody(request) },
      (keyid) => service.serverKey(keyid),
      Math.floor(now() / 1000),
    );
    if (!result.ok) throw new AuthenticationError(`FASP request signature: ${result.reason}`);
    request.faspServerId = result.keyid;
    // The digest was over the raw bytes; the handlers and their schemas see the parsed JSON (none when empty).
    request.body = parseJson(rawBody(request));
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.faspServerId === undefined) return payload;
    const key = await service.signingKey(request.faspServerId);
    if (key === undefined) return payload;
    const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : '';
    const headers = signFaspResponse({ status: reply.statusCode, body, privateKey: key, nowSeconds: Math.floor(now() / 1000) });
    void reply.headers(headers);
    return payload;
  });
}

/** The URL the server signed: this service's public base and the request's path and query. */
function targetUri(request: FastifyRequest): string {
  return `${publicBaseUrl(request)}${request.url}`;
}

function parseJson(raw: Buffer | undefined): unknown {
  if (raw === undefined || raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ValidationError('the request body is not JSON');
  }
}

function rawBody(request: FastifyRequest): Buffer | undefined {
  return Buffer.isBuffer(request.body) ? request.body : undefined;
}

/**
 * The spec's security headers on every response: nosniff, SAMEORIGIN framing, the legacy
 * XSS filter in block mode, and a same-origin Content-Security-Policy that the /docs
 * explorer still works under.
 *
 * helmet (the library @fastify/helmet wraps) decides the headers; it is run ONCE, at load,
 * against a recording response, and the resulting static list is set on every reply. The
 * same list goes into the raw responses written for parser errors (server/platform/plugins/raw-response.ts),
 * which never reach a fastify hook. (@fastify/helmet rebuilt helmet on every request:
 * about 5% of the server's CPU under interaction load.)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';

const applyHelmet = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      'default-src': ["'self'"],
      'base-uri': ["'self'"],
      'frame-ancestors': ["'self'"],
      'form-action': ["'self'"],
      'object-src': ["'none'"],
      'script-src': ["'self'"],
      // The OpenAPI explorer sets inline styles and loads its logo as a data: URL.
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
    },
  },
  frameguard: { action: 'sameorigin' },
  // helmet would write `X-XSS-Protection: 0`; the spec asks for block mode (added below).
  xXssProtection: false,
  crossOriginEmbedderPolicy: false,
});

/** helmet's headers for our configuration, recorded once: [lower-case name, value] pairs. */
function recordHelmetHeaders(): ReadonlyArray<readonly [string, string]> {
  const recorded = new Map<string, string>();
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      recorded.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
    },
    removeHeader(name: string) {
      recorded.delete(name.toLowerCase());
    },
  };
  let failure: unknown;
  applyHelmet({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  // helmet reports failures as Errors; anything else is shown as String() shows it.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
  recorded.set('x-xss-protection', '1; mode=block');
  return [...recorded.entries()];
}

/** Every security header the service sends, in order: the same on every response (but the login flow's, below). */
export const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = recordHelmetHeaders();

/**
 * Headers that break a browser's login flow: web clients (Phanpy, Elk) open the authorization
 * page in a popup and wait for it to hand the code back through `window.opener`; a
 * `Cross-Origin-Opener-Policy: same-origin` on any page of the popup severs that link (the main
 * window then says "Failed to log in"), and `Cross-Origin-Resource-Policy` has no business on
 * top-level pages. Left off the OAuth paths: the service's own (`/api/v1/oauth/…`) and the
 * instance's, forwarded in drop-in mode (`/oauth/…`).
 */
const LOGIN_FLOW_BREAKERS = new Set(['cross-origin-opener-policy', 'cross-origin-resource-policy']);
export const LOGIN_FLOW_HEADERS = SECURITY_HEADERS.filter(([name]) => !LOGIN_FLOW_BREAKERS.has(name));

/** Whether a request URL is part of an OAuth login flow (its raw path, so an odd spelling keeps the strict headers). */
export function isLoginFlowUrl(url: string): boolean {
  return url.startsWith('/oauth/') || url.startsWith('/api/v1/oauth/');
}

async function securityHeaders(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    for (const [name, value] of isLoginFlowUrl(request.url) ? LOGIN_FLOW_HEADERS : SECURITY_HEADERS) reply.raw.setHeader(name, value);
    done();
  });
}

export const securityHeadersPlugin = fp(securityHeaders, { name: 'security-headers' });

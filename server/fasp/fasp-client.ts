/**
 * This service's signed requests to a registered server's FASP API (`{server}/api/fasp`), as
 * Mastodon's Api::Fasp::BaseController checks them: `content-digest` of the body ('' when
 * none), `content-type` and `accept` application/json, an RFC 9421 signature over
 * `("@method" "@target-uri" "content-digest")` with `created` and `keyid` = the id the server
 * gave this service at registration. The answer must carry a matching digest and a valid
 * signature by the server's key over `("@status" "content-digest")`, else it is not trusted.
 */
import { signFaspRequest, verifyFaspResponse } from '../../src/fasp/index.js';
import type { FaspService } from './fasp.service.js';

/** The FASP API base of a server stored by its base URL (`https://mastodon.example` → `…/api/fasp`). */
export function faspApiBase(serverBaseUrl: string): string {
  const base = serverBaseUrl.replace(/\/+$/, '');
  return /\/api\/fasp$/.test(base) ? base : `${base}/api/fasp`;
}

export interface FaspAnswer {
  readonly status: number;
  /** The parsed JSON body (undefined when empty or not JSON). */
  readonly body: unknown;
  /** Whether the answer carried a valid signature by the server's key. */
  readonly verified: boolean;
}

export class FaspClientError extends Error {}

/** Sends one signed request to the server registered under `serverId`. */
export async function faspRequest(
  service: FaspService,
  serverId: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  options: { fetchImpl?: typeof fetch; nowMs?: number; timeoutMs?: number } = {},
): Promise<FaspAnswer> {
  const server = await service.find(serverId);
  const privateKey = await service.signingKey(serverId);
  const serverKey = await service.serverKey(serverId);
  if (server === undefined || privateKey === undefined || serverKey === undefined) throw new FaspClientError(`no FASP server ${serverId}`);
  const url = `${faspApiBase(server.baseUrl)}${path}`;
  const text = body === undefined ? '' : JSON.stringify(body);
  const nowSeconds = Math.floor((options.nowMs ?? Date.now()) / 1000);
  const signed = signFaspRequest({ method, targetUri: url, body: text, keyid: server.faspId, privateKey, nowSeconds });
  const headers = { accept: 'application/json', 'content-type': 'application/json', ...signed };
  const response = await (options.fetchImpl ?? fetch)(url, {
    method,
    headers,
    ...(method === 'GET' ? {} : { body: text }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    redirect: 'manual',
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const verification = await verifyFaspResponse(
    { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: bytes },
    serverKey,
    nowSeconds,
  );
  let parsed: unknown;
  try {
    parsed = bytes.length === 0 ? undefined : JSON.parse(bytes.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, verified: verification.ok };
}

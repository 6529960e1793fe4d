/**
 * Registration with a fediverse server (general/v0.1/registration.md, as Mastodon implements
 * it in Api::Fasp::RegistrationsController): a new Ed25519 key pair and server id, an
 * unsigned `POST {server}/api/fasp/registration` with `{name, baseUrl, serverId, publicKey}`,
 * and the answer's `faspId` and `publicKey` stored beside the sealed private key. The server's
 * admin then confirms the provider, comparing the fingerprint printed here.
 */
import { randomBytes } from 'node:crypto';
import { generateEd25519KeyPair, publicKeyFromRaw } from '../../src/fasp/index.js';
import { InputError } from '../../src/errors.js';
import { seal } from './fasp-keys.js';
import type { FaspServer, FaspService } from './fasp.service.js';

export interface RegistrationRequest {
  /** The server's base URL (`https://mastodon.example`), or its FASP API base (`…/api/fasp`). */
  readonly serverBaseUrl: string;
  /** The name the server's admin sees. */
  readonly name: string;
  /** This service's FASP base URL (`{public url}/fasp`). */
  readonly faspBaseUrl: string;
}

export interface Registration {
  readonly server: FaspServer;
  /** Where the server's admin confirms the provider (Mastodon's admin page), when it says. */
  readonly registrationCompletionUri: string | undefined;
}

/** Where a server takes registrations: `{base}/api/fasp/registration`, or `{base}/registration` for an API base. */
export function registrationUrl(serverBaseUrl: string): string {
  const base = serverBaseUrl.replace(/\/+$/, '');
  return /\/api\/fasp$/.test(base) ? `${base}/registration` : `${base}/api/fasp/registration`;
}

/** Registers with the server and stores the registration. */
export async function registerWithServer(
  service: FaspService,
  faspKey: Buffer,
  request: RegistrationRequest,
  fetchImpl: typeof fetch = fetch,
  nowMs = Date.now(),
): Promise<Registration> {
  const url = registrationUrl(request.serverBaseUrl);
  const pair = generateEd25519KeyPair();
  const serverId = randomBytes(12).toString('base64url');
  const body = { name: request.name, baseUrl: request.faspBaseUrl, serverId, publicKey: pair.publicKeyRaw.toString('base64') };
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new InputError(`cannot reach ${url}: ${(error as Error).message}`, 'is the server up, and EXPERIMENTAL_FEATURES=fasp set on it?');
  }
  const text = await response.text();
  if (!response.ok) {
    throw new InputError(
      `${url} answered ${response.status}`,
      response.status === 404 ? 'set EXPERIMENTAL_FEATURES=fasp on the Mastodon server' : undefined,
    );
  }
  const answer = parseAnswer(text);
  if (answer === undefined) throw new InputError(`${url} did not answer with {faspId, publicKey} (a raw 32-byte Ed25519 key in base64)`);
  const server = await service.store({
    id: serverId,
    base_url: request.serverBaseUrl.replace(/\/+$/, ''),
    name: request.name,
    fasp_id: answer.faspId,
    private_key_sealed: seal(faspKey, pair.privateKeyDer),
    public_key: body.publicKey,
    server_public_key: answer.publicKey,
    capabilities: '[]',
    created_at_ms: nowMs,
  });
  return { server, registrationCompletionUri: answer.registrationCompletionUri };
}

function parseAnswer(text: string): { faspId: string; publicKey: string; registrationCompletionUri: string | undefined } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { faspId, publicKey, registrationCompletionUri } = value as Record<string, unknown>;
  const id = typeof faspId === 'number' ? String(faspId) : faspId;
  if (typeof id !== 'string' || id === '' || typeof publicKey !== 'string' || publicKeyFromRaw(publicKey) === undefined) return undefined;
  return {
    faspId: id,
    publicKey,
    registrationCompletionUri: typeof registrationCompletionUri === 'string' ? registrationCompletionUri : undefined,
  };
}

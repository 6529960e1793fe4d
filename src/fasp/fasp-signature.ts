/**
 * FASP's authentication (general/v0.1/protocol_basics.md): every request carries a SHA-256
 * `Content-Digest` and an Ed25519 RFC 9421 signature over `("@method" "@target-uri"
 * "content-digest")` with `created` and `keyid` (the identifier exchanged at registration);
 * every response one over `("@status" "content-digest")`. A signature is accepted when its
 * `created` lies within MAX_SIGNATURE_SKEW_SECONDS of now either way (Mastodon's own check is
 * "no older than 5 minutes").
 */
import type { KeyObject } from 'node:crypto';
import { contentDigest, contentDigestMatches } from './content-digest.js';
import { parseSignatures, signMessage, verifySignature, type ComponentResolver } from './message-signature.js';
import type { BareItem } from './structured-fields.js';

export const FASP_REQUEST_COMPONENTS = ['@method', '@target-uri', 'content-digest'] as const;
export const FASP_RESPONSE_COMPONENTS = ['@status', 'content-digest'] as const;
/** How far a signature's `created` may lie from the receiver's clock, in seconds, either way. */
export const MAX_SIGNATURE_SKEW_SECONDS = 300;

/** The header fields FASP adds to a signed message. */
export type FaspSignedHeaders = {
  'content-digest': string;
  'signature-input': string;
  signature: string;
};

/** The headers that sign a request to `targetUri` (the full URL, query included) with `body` (empty for a GET). */
export function signFaspRequest(options: {
  method: string;
  targetUri: string;
  body: Uint8Array | string;
  keyid: string;
  privateKey: KeyObject;
  nowSeconds: number;
}): FaspSignedHeaders {
  const digest = contentDigest(options.body);
  const values: Record<string, string> = {
    '@method': options.method.toUpperCase(),
    '@target-uri': options.targetUri,
    'content-digest': digest,
  };
  return signed(
    digest,
    FASP_REQUEST_COMPONENTS,
    [
      ['created', Math.floor(options.nowSeconds)],
      ['keyid', options.keyid],
    ],
    options.privateKey,
    (name) => values[name],
  );
}

/** The headers that sign a response of `status` with `body` (empty for a 204). */
export function signFaspResponse(options: {
  status: number;
  body: Uint8Array | string;
  privateKey: KeyObject;
  keyid?: string;
  nowSeconds: number;
}): FaspSignedHeaders {
  const digest = contentDigest(options.body);
  const values: Record<string, string> = { '@status': String(options.status), 'content-digest': digest };
  const params: [string, BareItem][] = [['created', Math.floor(options.nowSeconds)]];
  if (options.keyid !== undefined) params.push(['keyid', options.keyid]);
  return signed(digest, FASP_RESPONSE_COMPONENTS, params, options.privateKey, (name) => values[name]);
}

function signed(
  digest: string,
  components: readonly string[],
  params: [string, BareItem][],
  privateKey: KeyObject,
  resolve: ComponentResolver,
): FaspSignedHeaders {
  const result = signMessage({ components, params: new Map(params), privateKey, resolve });
  if (result === undefined) throw new Error('a FASP signature covers only components it was given');
  return { 'content-digest': digest, 'signature-input': result.signatureInput, signature: result.signature };
}

/** What a received message offers for verification (header names lowercase, as Node gives them). */
export interface ReceivedMessage {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The raw body bytes (empty or undefined for none). */
  readonly body: Uint8Array | string | undefined;
}

export type FaspVerification =
  { readonly ok: true; readonly keyid: string | undefined; readonly created: number } | { readonly ok: false; readonly reason: string };

function header(message: ReceivedMessage, name: string): string | undefined {
  const value = message.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Checks a request: a matching `Content-Digest`, a signature covering the FASP components
 * with an integer `created` within the skew window and a `keyid`, valid under the key that
 * `keyFor` returns for that keyid (undefined: unknown signer).
 */
export async function verifyFaspRequest(
  message: ReceivedMessage & { readonly method: string; readonly targetUri: string },
  keyFor: (keyid: string) => Promise<KeyObject | undefined> | KeyObject | undefined,
  nowSeconds: number,
): Promise<FaspVerification> {
  const values: Record<string, string | undefined> = {
    '@method': message.method.toUpperCase(),
    '@target-uri': message.targetUri,
    'content-digest': header(message, 'content-digest'),
  };
  return verifyFasp(message, FASP_REQUEST_COMPONENTS, (name) => values[name], keyFor, nowSeconds, true);
}

/** Checks a response the same way, under the one key of the party that was asked. */
export async function verifyFaspResponse(
  message: ReceivedMessage & { readonly status: number },
  publicKey: KeyObject,
  nowSeconds: number,
): Promise<FaspVerification> {
  const values: Record<string, string | undefined> = {
    '@status': String(message.status),
    'content-digest': header(message, 'content-digest'),
  };
  return verifyFasp(
    message,
    FASP_RESPONSE_COMPONENTS,
    (name) => values[name],
    () => publicKey,
    nowSeconds,
    false,
  );
}

async function verifyFasp(
  message: ReceivedMessage,
  required: readonly string[],
  resolve: ComponentResolver,
  keyFor: (keyid: string) => Promise<KeyObject | undefined> | KeyObject | undefined,
  nowSeconds: number,
  keyidRequired: boolean,
): Promise<FaspVerification> {
  if (!contentDigestMatches(header(message, 'content-digest'), message.body))
    return { ok: false, reason: 'content-digest missing or not matching the body' };
  const input = header(message, 'signature-input');
  const value = header(message, 'signature');
  if (input === undefined || value === undefined) return { ok: false, reason: 'signature-input or signature missing' };
  const received = parseSignatures(input, value);
  if (received === undefined) return { ok: false, reason: 'signature-input or signature malformed' };
  const candidate = received.find((s) => required.every((name) => s.components.includes(name)));
  if (candidate === undefined) return { ok: false, reason: `no signature covers ${required.join(' ')}` };
  const created = candidate.params.get('created');
  if (typeof created !== 'number') return { ok: false, reason: 'the signature has no created time' };
  if (Math.abs(nowSeconds - created) > MAX_SIGNATURE_SKEW_SECONDS)
    return { ok: false, reason: 'the signature is stale or from the future' };
  const expires = candidate.params.get('expires');
  if (typeof expires === 'number' && expires < nowSeconds) return { ok: false, reason: 'the signature has expired' };
  const keyid = candidate.params.get('keyid');
  if (typeof keyid !== 'string' && (keyidRequired || keyid !== undefined)) return { ok: false, reason: 'the signature has no keyid' };
  const key = await keyFor(typeof keyid === 'string' ? keyid : '');
  if (key === undefined) return { ok: false, reason: 'unknown keyid' };
  if (!verifySignature(candidate, key, resolve)) return { ok: false, reason: 'the signature does not verify' };
  return { ok: true, keyid: typeof keyid === 'string' ? keyid : undefined, created };
}

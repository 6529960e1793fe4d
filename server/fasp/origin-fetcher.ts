/**
 * Signed GETs of ActivityPub objects from their origin (discovery/data_sharing v0.1):
 * `Accept: application/ld+json; profile="https://www.w3.org/ns/activitystreams"`, signed by
 * this service's actor key (fasp-actor.ts) with RFC 9421 first (`("@method" "@target-uri")`,
 * `created`, `keyid`, rsa-v1_5-sha256), and on 401 or 403 again with draft-cavage HTTP
 * Signatures (`(request-target) host date accept`, rsa-sha256): "double-knocking". The scheme
 * a host accepted is remembered (fasp_signature_schemes) and used first; a host remembered as
 * cavage-only is asked with RFC 9421 first again once RETRY_RFC9421_MS has passed, as the
 * specification requires, and a host that refuses its remembered scheme is asked with the other.
 */
import { sign } from 'node:crypto';
import type { Kysely } from 'kysely';
import { signMessage } from '../../src/fasp/index.js';
import type { Database } from '../platform/db/database.js';
import type { FaspActor } from './fasp-actor.js';

export const ACTIVITY_ACCEPT = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
/** A host that accepted only cavage is tried with RFC 9421 again after a week. */
export const RETRY_RFC9421_MS = 7 * 86_400_000;
/** The largest object read. */
const MAX_OBJECT_BYTES = 1_000_000;

export type SignatureScheme = 'rfc9421' | 'cavage';

export type FetchOutcome =
  | { readonly kind: 'found'; readonly object: Record<string, unknown> }
  /** 404 or 410: the object is gone. */
  | { readonly kind: 'gone' }
  /** Anything else (refused, failing, unreachable, not JSON): nothing can be said. */
  | { readonly kind: 'unknown'; readonly reason: string };

export class OriginFetcher {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly actor: FaspActor,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /** Fetches `uri`, signed as the actor at `{faspBase}/actor`. */
  async fetch(uri: string, faspBase: string, nowMs = Date.now()): Promise<FetchOutcome> {
    const url = new URL(uri);
    const host = url.host.toLowerCase();
    const remembered = await this.db.selectFrom('fasp_signature_schemes').selectAll().where('host', '=', host).executeTakeFirst();
    const cavageFirst = remembered?.scheme === 'cavage' && nowMs - Number(remembered.checked_at_ms) < RETRY_RFC9421_MS;
    // Double-knocking both ways: a host that stops taking the remembered scheme gets the other.
    const order: SignatureScheme[] = cavageFirst ? ['cavage', 'rfc9421'] : ['rfc9421', 'cavage'];
    let response: Response | undefined;
    for (const scheme of order) {
      try {
        response = await this.fetchImpl(uri, {
          headers: await this.headers(scheme, url, faspBase, nowMs),
          redirect: 'manual',
          signal: AbortSignal.timeout(10_000),
        });
      } catch (error) {
        return { kind: 'unknown', reason: `unreachable: ${(error as Error).message}` };
      }
      if (response.status === 401 || response.status === 403) continue;
      // A cavage-only host retried with RFC 9421 starts a new period either way.
      if (remembered?.scheme !== scheme || (scheme === 'cavage' && !cavageFirst)) await this.remember(host, scheme, nowMs);
      break;
    }
    if (response === undefined) return { kind: 'unknown', reason: 'no request made' };
    if (response.status === 404 || response.status === 410) return { kind: 'gone' };
    if (response.status !== 200) return { kind: 'unknown', reason: `status ${response.status}` };
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > MAX_OBJECT_BYTES) return { kind: 'unknown', reason: 'too large' };
    try {
      const object: unknown = JSON.parse(bytes.toString('utf8'));
      if (typeof object !== 'object' || object === null || Array.isArray(object)) return { kind: 'unknown', reason: 'not an object' };
      return { kind: 'found', object: object as Record<string, unknown> };
    } catch {
      return { kind: 'unknown', reason: 'not JSON' };
    }
  }

  /** The scheme remembered for a host (tests, `recsvc fasp show`). */
  async scheme(host: string): Promise<SignatureScheme | undefined> {
    const row = await this.db
      .selectFrom('fasp_signature_schemes')
      .select('scheme')
      .where('host', '=', host.toLowerCase())
      .executeTakeFirst();
    return row?.scheme as SignatureScheme | undefined;
  }

  private async remember(host: string, scheme: SignatureScheme, nowMs: number): Promise<void> {
    await this.db
      .insertInto('fasp_signature_schemes')
      .values({ host, scheme, checked_at_ms: nowMs })
      .onConflict((oc) => oc.column('host').doUpdateSet({ scheme, checked_at_ms: nowMs }))
      .execute();
  }

  private async headers(scheme: SignatureScheme, url: URL, faspBase: string, nowMs: number): Promise<Record<string, string>> {
    const { privateKey } = await this.actor.keyPair();
    const keyId = `${faspBase}/actor#main-key`;
    const date = new Date(nowMs).toUTCString();
    const base: Record<string, string> = { accept: ACTIVITY_ACCEPT, date };
    if (scheme === 'rfc9421') {
      const values: Record<string, string> = { '@method': 'GET', '@target-uri': url.href };
      const signed = signMessage({
        components: ['@method', '@target-uri'],
        params: new Map<string, string | number>([
          ['created', Math.floor(nowMs / 1000)],
          ['keyid', keyId],
          ['alg', 'rsa-v1_5-sha256'],
        ]),
        privateKey,
        resolve: (name) => values[name],
        signer: (text) => sign('sha256', Buffer.from(text), privateKey),
      })!;
      return { ...base, 'signature-input': signed.signatureInput, signature: signed.signature };
    }
    const signingString = [
      `(request-target): get ${url.pathname}${url.search}`,
      `host: ${url.host}`,
      `date: ${date}`,
      `accept: ${ACTIVITY_ACCEPT}`,
    ].join('\n');
    const signature = sign('sha256', Buffer.from(signingString), privateKey).toString('base64');
    return {
      ...base,
      signature: `keyId="${keyId}",algorithm="rsa-sha256",headers="(request-target) host date accept",signature="${signature}"`,
    };
  }
}

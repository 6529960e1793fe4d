/**
 * A fake Mastodon server's FASP side, on 127.0.0.1:0, behaving as Mastodon's own code does
 * (app/controllers/api/fasp/registrations_controller.rb, app/models/fasp/provider.rb,
 * app/lib/fasp/request.rb, app/services/fasp/... trends refresh):
 * - `POST /api/fasp/registration` (unsigned) stores `{name, baseUrl, serverId, publicKey}`
 *   and answers `{faspId, publicKey, registrationCompletionUri}` with a key pair of its own;
 * - its requests to the provider go to `base_url.chomp('/') + path` with `accept` and
 *   `content-type: application/json`, `content-digest` of the body ('' for GETs and
 *   activations), and an RFC 9421 signature `sig1=("@method" "@target-uri" "content-digest");
 *   created=…;keyid="<serverId>"` by its private key, as Linzer writes it;
 * - it refuses an answer of status ≥ 400, or without a matching `content-digest`, or without
 *   a valid signature by the provider's key (Linzer.verify! over the received signature-input).
 * Its signature code is written here by hand from the RFC, independently of src/fasp.
 */
import { createHash, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import Fastify from 'fastify';

export interface FakeProvider {
  name: string;
  baseUrl: string;
  serverId: string;
  publicKey: string;
  capabilities: { id: string; version: string; enabled?: boolean }[];
}

export interface FakeResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
  /** Whether the answer passed Mastodon's Fasp::Request#validate!. */
  valid: boolean;
}

export interface SignedRequestOptions {
  body?: string;
  /** The `created` to sign with (default: now). */
  createdSeconds?: number;
  /** Sent instead of the signed body (a tampered request). */
  sentBody?: string;
  /** Sign with another key than the registered one. */
  wrongKey?: boolean;
  /** Send no signature at all. */
  unsigned?: boolean;
}

const digestOf = (body: string): string => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;

export class FakeMastodon {
  provider: FakeProvider | undefined;
  readonly faspId = '1';
  private readonly keys = generateKeyPairSync('ed25519');
  private readonly otherKeys = generateKeyPairSync('ed25519');

  private constructor(
    readonly url: string,
    private readonly close0: () => Promise<void>,
  ) {}

  static async start(): Promise<FakeMastodon> {
    const app = Fastify();
    let fake: FakeMastodon | undefined;
    app.post('/api/fasp/registration', async (request) => {
      const body = request.body as Record<string, string>;
      fake!.provider = { name: body.name!, baseUrl: body.baseUrl!, serverId: body.serverId!, publicKey: body.publicKey!, capabilities: [] };
      return {
        faspId: fake!.faspId,
        publicKey: fake!.publicKeyBase64(),
        registrationCompletionUri: `${fake!.url}/admin/fasp/providers/${fake!.faspId}`,
      };
    });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    fake = new FakeMastodon(address, () => app.close());
    return fake;
  }

  /** base64 of the raw 32 bytes of the server's public key (Provider#server_public_key_base64). */
  publicKeyBase64(): string {
    return Buffer.from(this.keys.publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
  }

  /** The fingerprint Mastodon's admin page shows for the provider: base64(SHA-256(raw key)). */
  providerFingerprint(): string {
    return createHash('sha256').update(Buffer.from(this.provider!.publicKey, 'base64')).digest('base64');
  }

  /** The admin confirms the provider: Provider#update_info!(confirm: true). */
  async confirm(): Promise<FakeResponse> {
    const response = await this.request('GET', '/provider_info');
    if (response.valid)
      this.provider!.capabilities = (JSON.parse(response.body) as { capabilities: FakeProvider['capabilities'] }).capabilities;
    return response;
  }

  /** The admin ticks a capability: Provider#update_remote_capability (the path carries the major version). */
  async setCapability(id: string, enabled: boolean): Promise<FakeResponse> {
    const capability = this.provider!.capabilities.find((c) => c.id === id) ?? { id, version: '0.1' };
    const [major] = capability.version.split('.');
    return this.request(enabled ? 'POST' : 'DELETE', `/capabilities/${id}/${major}/activation`);
  }

  /** Fasp::RefreshTrends's query for one language (`params.to_query` sorts the keys). */
  async trends(language: string): Promise<FakeResponse> {
    return this.request('GET', `/trends/v0/content?language=${language}&maxCount=20&withinLastHours=4`);
  }

  /** One Fasp::Request (body '' unless given), optionally broken for the tests of refusals. */
  async request(method: string, path: string, options: SignedRequestOptions = {}): Promise<FakeResponse> {
    const provider = this.provider!;
    const url = `${provider.baseUrl.replace(/\/$/, '')}${path}`;
    const body = options.body ?? '';
    const digest = digestOf(body);
    const created = options.createdSeconds ?? Math.floor(Date.now() / 1000);
    const params = `("@method" "@target-uri" "content-digest");created=${created};keyid="${provider.serverId}"`;
    const base = `"@method": ${method}\n"@target-uri": ${url}\n"content-digest": ${digest}\n"@signature-params": ${params}`;
    const key = options.wrongKey ? this.otherKeys.privateKey : this.keys.privateKey;
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json', 'content-digest': digest };
    if (!options.unsigned) {
      headers['signature-input'] = `sig1=${params}`;
      headers.signature = `sig1=:${sign(null, Buffer.from(base), key).toString('base64')}:`;
    }
    const response = await fetch(url, method === 'GET' ? { method, headers } : { method, headers, body: options.sentBody ?? body });
    const text = await response.text();
    const responseHeaders = Object.fromEntries(response.headers.entries());
    return { status: response.status, body: text, headers: responseHeaders, valid: this.validate(response.status, text, responseHeaders) };
  }

  /** Fasp::Request#validate!. */
  private validate(status: number, body: string, headers: Record<string, string>): boolean {
    if (status >= 400) return false;
    if (headers['content-digest'] !== digestOf(body)) return false;
    const input = headers['signature-input'];
    const match = input === undefined ? null : /^([a-z0-9-]+)=(\(.*)$/.exec(input);
    if (match === null) return false;
    const signature = new RegExp(`${match[1]}=:([A-Za-z0-9+/=]+):`).exec(headers.signature ?? '');
    if (signature === null) return false;
    const covered = /^\(([^)]*)\)/
      .exec(match[2]!)![1]!
      .split(' ')
      .map((c) => c.replace(/"/g, ''));
    const values: Record<string, string> = { '@status': String(status), 'content-digest': headers['content-digest'] };
    const base = [...covered.map((c) => `"${c}": ${values[c]}`), `"@signature-params": ${match[2]}`].join('\n');
    const key: KeyObject = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(this.provider!.publicKey, 'base64').toString('base64url') },
      format: 'jwk',
    });
    return (
      covered.includes('@status') &&
      covered.includes('content-digest') &&
      verify(null, Buffer.from(base), key, Buffer.from(signature[1]!, 'base64'))
    );
  }

  async close(): Promise<void> {
    await this.close0();
  }
}

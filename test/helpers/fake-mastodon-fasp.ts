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
 * - its FASP API for providers (Api::Fasp::BaseController and the data_sharing / debug
 *   controllers): event subscriptions, backfill requests and their continuation, the debug
 *   callback's responses; each request's digest and RFC 9421 signature (keyid: the faspId it
 *   gave) checked, each answer signed by its key over `("@status" "content-digest")`;
 * - its announce workers (AnnounceContentLifecycleEventWorker, AnnounceTrendWorker,
 *   BackfillWorker: one URI per event, `source` naming the subscription or backfill);
 * - as an ActivityPub origin: actors and posts served as JSON-LD at their URIs, to signed GETs
 *   only (RFC 9421 or draft-cavage, each verifiable under the key of the `keyid` actor it
 *   fetches; a scheme it does not accept is a 401, as Mastodon does), 410 for deleted ones;
 * - the follow-recommendation and account-search workers' queries (`to_query` sorts the keys).
 * Its signature code is written here by hand from the RFCs, independently of src/fasp.
 */
import { createHash, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';

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

  /** Subscriptions providers made (Fasp::Subscription rows), by id. */
  readonly subscriptions = new Map<string, Record<string, unknown>>();
  readonly backfills = new Map<string, Record<string, unknown>>();
  readonly continuations: string[] = [];
  /** Debug callbacks received (Fasp::DebugCallback rows). */
  readonly debugCallbacks: { ip: string; body: string }[] = [];
  /** Requests to its FASP API it refused (bad digest or signature). */
  readonly refused: string[] = [];
  /** ActivityPub objects it serves, by path; `null`: deleted (410). */
  readonly objects = new Map<string, Record<string, unknown> | null>();
  /** The signature schemes it accepts on ActivityPub fetches. */
  acceptedSchemes: ('rfc9421' | 'cavage')[] = ['rfc9421', 'cavage'];
  /** Each ActivityPub fetch: its path, the scheme it was signed with, and the status answered. */
  readonly fetches: { path: string; scheme: string; status: number }[] = [];
  private nextId = 100;

  static async start(): Promise<FakeMastodon> {
    const app = Fastify();
    let fake: FakeMastodon | undefined;
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.post('/api/fasp/registration', async (request) => {
      const body = JSON.parse(request.body as string) as Record<string, string>;
      fake!.provider = { name: body.name!, baseUrl: body.baseUrl!, serverId: body.serverId!, publicKey: body.publicKey!, capabilities: [] };
      return {
        faspId: fake!.faspId,
        publicKey: fake!.publicKeyBase64(),
        registrationCompletionUri: `${fake!.url}/admin/fasp/providers/${fake!.faspId}`,
      };
    });
    app.post('/api/fasp/data_sharing/v0/event_subscriptions', (request, reply) =>
      fake!.providerCall(request, reply, (body) => {
        const id = String((fake!.nextId += 1));
        fake!.subscriptions.set(id, body!);
        return { status: 201, body: { subscription: { id } } };
      }),
    );
    app.delete('/api/fasp/data_sharing/v0/event_subscriptions/:id', (request, reply) =>
      fake!.providerCall(request, reply, () => {
        const { id } = request.params as { id: string };
        return fake!.subscriptions.delete(id) ? { status: 204 } : { status: 404 };
      }),
    );
    app.post('/api/fasp/data_sharing/v0/backfill_requests', (request, reply) =>
      fake!.providerCall(request, reply, (body) => {
        const id = String((fake!.nextId += 1));
        fake!.backfills.set(id, body!);
        return { status: 201, body: { backfillRequest: { id } } };
      }),
    );
    app.post('/api/fasp/data_sharing/v0/backfill_requests/:id/continuation', (request, reply) =>
      fake!.providerCall(request, reply, () => {
        const { id } = request.params as { id: string };
        if (!fake!.backfills.has(id)) return { status: 404 };
        fake!.continuations.push(id);
        return { status: 204 };
      }),
    );
    app.post('/api/fasp/debug/v0/callback/responses', (request, reply) =>
      fake!.providerCall(request, reply, () => {
        fake!.debugCallbacks.push({ ip: request.ip, body: (request.body as string | undefined) ?? '' });
        return { status: 201 };
      }),
    );
    app.get('/*', (request, reply) => fake!.serveObject(request, reply));
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    fake = new FakeMastodon(address, () => app.close());
    return fake;
  }

  /**
   * One provider call to Api::Fasp::BaseController: 401 (no body) unless the digest matches and
   * the RFC 9421 signature verifies under the provider's key with keyid = the faspId; the answer
   * signed by the server's key over `("@status" "content-digest")` (Linzer.sign!).
   */
  private providerCall(
    request: FastifyRequest,
    reply: FastifyReply,
    handle: (body: Record<string, unknown> | undefined) => { status: number; body?: unknown },
  ): FastifyReply {
    const raw = (request.body as string | undefined) ?? '';
    const headers = request.headers as Record<string, string>;
    const url = `${this.url}${request.url}`;
    const ok =
      headers['content-digest'] === digestOf(raw) &&
      this.verifyProviderSignature(request.method, url, headers) &&
      headers['content-type']?.startsWith('application/json') === true;
    if (!ok) {
      this.refused.push(`${request.method} ${request.url}`);
      return reply.code(401).send();
    }
    const answer = handle(raw === '' ? undefined : (JSON.parse(raw) as Record<string, unknown>));
    const body = answer.body === undefined ? '' : JSON.stringify(answer.body);
    const digest = digestOf(body);
    const params = `("@status" "content-digest");created=${Math.floor(Date.now() / 1000)}`;
    const base = `"@status": ${answer.status}\n"content-digest": ${digest}\n"@signature-params": ${params}`;
    void reply.headers({
      'content-type': 'application/json',
      'content-digest': digest,
      'signature-input': `sig1=${params}`,
      signature: `sig1=:${sign(null, Buffer.from(base), this.keys.privateKey).toString('base64')}:`,
    });
    return reply.code(answer.status).send(body);
  }

  /** Linzer.verify! with keyid = the faspId it gave, under the provider's registered key, no older than 5 minutes. */
  private verifyProviderSignature(method: string, url: string, headers: Record<string, string>): boolean {
    const input = /^sig1=(\(([^)]*)\)(.*))$/.exec(headers['signature-input'] ?? '');
    const value = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(headers.signature ?? '');
    if (input === null || value === null) return false;
    const keyid = /;keyid="([^"]*)"/.exec(input[3]!)?.[1];
    const created = Number(/;created=(\d+)/.exec(input[3]!)?.[1]);
    if (keyid !== this.faspId || !(Math.abs(Date.now() / 1000 - created) < 300)) return false;
    const values: Record<string, string> = { '@method': method, '@target-uri': url, 'content-digest': headers['content-digest'] ?? '' };
    const covered = input[2]!.split(' ').map((c) => c.replace(/"/g, ''));
    if (!['@method', '@target-uri', 'content-digest'].every((c) => covered.includes(c))) return false;
    const base = [...covered.map((c) => `"${c}": ${values[c]}`), `"@signature-params": ${input[1]}`].join('\n');
    return verify(null, Buffer.from(base), this.providerKey(), Buffer.from(value[1]!, 'base64'));
  }

  private providerKey(): KeyObject {
    return createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(this.provider!.publicKey, 'base64').toString('base64url') },
      format: 'jwk',
    });
  }

  /** Serves an ActivityPub object to a signed GET: the signature verified under the key its keyid's actor document holds. */
  private async serveObject(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const path = request.url;
    const headers = request.headers as Record<string, string>;
    const scheme = headers['signature-input'] !== undefined ? 'rfc9421' : headers.signature !== undefined ? 'cavage' : 'none';
    const record = (status: number): FastifyReply => {
      this.fetches.push({ path, scheme, status });
      return reply.code(status).send(status === 401 ? { error: 'Request not signed' } : undefined);
    };
    if (scheme === 'none' || !this.acceptedSchemes.includes(scheme)) return record(401);
    if (!(await this.verifyFetchSignature(scheme, path, headers))) return record(401);
    if (!this.objects.has(path)) return record(404);
    const object = this.objects.get(path);
    if (object === null) return record(410);
    this.fetches.push({ path, scheme, status: 200 });
    return reply.code(200).type('application/activity+json').send(JSON.stringify(object));
  }

  private async verifyFetchSignature(scheme: 'rfc9421' | 'cavage', path: string, headers: Record<string, string>): Promise<boolean> {
    if (scheme === 'rfc9421') {
      const input = /^sig1=(\(([^)]*)\)(.*))$/.exec(headers['signature-input'] ?? '');
      const value = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(headers.signature ?? '');
      const keyid = input === null ? undefined : /;keyid="([^"]*)"/.exec(input[3]!)?.[1];
      if (input === null || value === null || keyid === undefined) return false;
      const values: Record<string, string> = { '@method': 'GET', '@target-uri': `${this.url}${path}` };
      const covered = input[2]!.split(' ').map((c) => c.replace(/"/g, ''));
      if (!covered.includes('@method') || !covered.includes('@target-uri')) return false;
      const base = [...covered.map((c) => `"${c}": ${values[c]}`), `"@signature-params": ${input[1]}`].join('\n');
      const pem = await this.actorKey(keyid);
      return pem !== undefined && verify('sha256', Buffer.from(base), pem, Buffer.from(value[1]!, 'base64'));
    }
    const fields = Object.fromEntries([...(headers.signature ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (fields.keyId === undefined || fields.headers === undefined || fields.signature === undefined) return false;
    const names = fields.headers.split(' ');
    if (!names.includes('(request-target)') || !names.includes('date')) return false;
    const lines = names.map((name) => (name === '(request-target)' ? `(request-target): get ${path}` : `${name}: ${headers[name] ?? ''}`));
    const pem = await this.actorKey(fields.keyId);
    return pem !== undefined && verify('sha256', Buffer.from(lines.join('\n')), pem, Buffer.from(fields.signature, 'base64'));
  }

  /** The public key of the actor a keyid names (its document fetched, as Mastodon does; not signed). */
  private async actorKey(keyId: string): Promise<string | undefined> {
    const response = await fetch(keyId.split('#')[0]!, { headers: { accept: 'application/activity+json' } });
    if (!response.ok) return undefined;
    const actor = (await response.json()) as { publicKey?: { id?: string; publicKeyPem?: string } };
    return actor.publicKey?.id === keyId ? actor.publicKey.publicKeyPem : undefined;
  }

  /** An actor of this server, served at `/users/<name>`; returns its URI. */
  addActor(name: string, fields: Record<string, unknown>): string {
    const uri = `${this.url}/users/${name}`;
    this.objects.set(`/users/${name}`, {
      '@context': ['https://www.w3.org/ns/activitystreams'],
      id: uri,
      type: 'Person',
      preferredUsername: name,
      name: name.toUpperCase(),
      summary: `<p>${name} writes here</p>`,
      url: `${this.url}/@${name}`,
      published: '2024-01-01T00:00:00Z',
      ...fields,
    });
    return uri;
  }

  /** A post of an actor, served at `/users/<name>/statuses/<n>`; returns its URI. */
  addNote(name: string, n: number, fields: Record<string, unknown> = {}): string {
    const uri = `${this.url}/users/${name}/statuses/${n}`;
    this.objects.set(`/users/${name}/statuses/${n}`, {
      id: uri,
      type: 'Note',
      attributedTo: `${this.url}/users/${name}`,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [`${this.url}/users/${name}/followers`],
      published: new Date(Date.now() - 3_600_000).toISOString(),
      content: `<p>post ${n} by ${name}</p>`,
      contentMap: { en: `<p>post ${n} by ${name}</p>` },
      tag: [],
      ...fields,
    });
    return uri;
  }

  /** Changes a served object (an edit, or withdrawn consent). */
  update(uri: string, fields: Record<string, unknown>): void {
    const path = uri.slice(this.url.length);
    this.objects.set(path, { ...this.objects.get(path)!, ...fields });
  }

  /** Deletes a served object (410 from now on). */
  remove(uri: string): void {
    this.objects.set(uri.slice(this.url.length), null);
  }

  /** Announce*Worker: one URI per announcement, under the subscription of that category and type. */
  async announce(category: 'content' | 'account', eventType: 'new' | 'update' | 'delete' | 'trending', uri: string): Promise<FakeResponse> {
    const type = eventType === 'trending' ? 'trends' : 'lifecycle';
    const id = [...this.subscriptions].find(([, s]) => s.category === category && s.subscriptionType === type)?.[0] ?? '0';
    const body = { source: { subscription: { id } }, category, eventType, objectUris: [uri] };
    return this.request('POST', '/data_sharing/v0/announcements', { body: JSON.stringify(body) });
  }

  /** BackfillWorker: a batch of URIs for a backfill request. */
  async backfill(category: 'content' | 'account', uris: string[], more: boolean): Promise<FakeResponse> {
    const id = [...this.backfills].find(([, b]) => b.category === category)?.[0] ?? '0';
    const body = { source: { backfillRequest: { id } }, category, objectUris: uris, moreObjectsAvailable: more };
    return this.request('POST', '/data_sharing/v0/announcements', { body: JSON.stringify(body) });
  }

  /** Fasp::Provider#perform_debug_call. */
  async debugCall(): Promise<FakeResponse> {
    return this.request('POST', '/debug/v0/callback/logs', { body: JSON.stringify({ hello: 'world' }) });
  }

  /** Fasp::FollowRecommendationWorker's query. */
  async followRecommendations(accountUri: string, language?: string): Promise<FakeResponse> {
    const query = new URLSearchParams({ accountUri, ...(language === undefined ? {} : { language }) });
    return this.request('GET', `/follow_recommendation/v0/accounts?${query.toString()}`);
  }

  /** Fasp::AccountSearchWorker's query (`{ term:, limit: 10 }.to_query`: sorted, CGI-escaped). */
  async accountSearch(term: string): Promise<FakeResponse> {
    return this.request('GET', `/account_search/v0/search?limit=10&term=${encodeURIComponent(term).replace(/%20/g, '+')}`);
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

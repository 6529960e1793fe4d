/**
 * The instance client against the test instance (insecure mode, plain HTTP on 127.0.0.1):
 * what it returns, and that every failure is a prompt typed error, never a hang.
 * Timeouts are set short here; nothing asserts on durations.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseInstanceAddress, type InstanceAddress, type Resolver } from '../../../server/platform/social/instance-address.js';
import {
  InstanceClient,
  InstanceForbiddenError,
  InstanceNotFoundError,
  InstanceTokenRejectedError,
  InstanceUnavailableError,
} from '../../../server/platform/social/instance-client.js';
import { InstanceAddressError } from '../../../server/platform/social/instance-address.js';
import {
  startConnectionCounter,
  startMastodonInstance,
  type ConnectionCounter,
  type MastodonTestInstance,
} from '../../helpers/mastodon-instance.js';

let instance: MastodonTestInstance;
let counter: ConnectionCounter;
let client: InstanceClient;
let address: InstanceAddress;

beforeAll(async () => {
  instance = await startMastodonInstance();
  counter = await startConnectionCounter();
  client = new InstanceClient({
    allowInsecure: true,
    connectTimeoutMs: 1_000,
    headersTimeoutMs: 1_000,
    bodyTimeoutMs: 1_000,
    requestTimeoutMs: 3_000,
    maxResponseBytes: 256 * 1024,
  });
  address = parseInstanceAddress(instance.host, { allowInsecure: true });
});

afterAll(async () => {
  await client.close();
  await counter.close();
  await instance.close();
});

afterEach(() => {
  instance.clearFaults();
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

describe('InstanceClient: answers', () => {
  it('returns the status, the parsed JSON and the headers a client needs', async () => {
    const response = await client.request<Array<{ id: string }>>(address, {
      path: '/api/v1/timelines/home',
      query: { limit: 5 },
      token: instance.token,
    });
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(5);
    expect(response.body.map((status) => status.id)).toEqual(
      instance
        .homeTimeline()
        .slice(0, 5)
        .map((status) => status.id),
    );
    expect(response.headers.link).toMatch(new RegExp(`^<${instance.origin}/api/v1/timelines/home\\?limit=5&max_id=\\d+>; rel="next"`));
    expect(response.headers['x-ratelimit-limit']).toBe('300');
    expect(response.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
    expect(Date.parse(response.headers['x-ratelimit-reset'] ?? '')).toBeGreaterThan(0);
    expect(response.headers['content-type']).toMatch(/application\/json/);
  });

  it('sends query arrays as repeated keys and JSON bodies', async () => {
    const app = await client.request<{ client_id: string; redirect_uris: string[] }>(address, {
      method: 'POST',
      path: '/api/v1/apps',
      body: { client_name: 'recsvc test', redirect_uris: ['https://a.example/cb', 'https://b.example/cb'], scopes: 'read write' },
    });
    expect(app.body.redirect_uris).toEqual(['https://a.example/cb', 'https://b.example/cb']);
    await client.request(address, { path: '/api/v1/timelines/public', query: { 'any[]': ['a', 'b'], local: true } });
    const seen = instance.requests[instance.requests.length - 1];
    expect(seen?.query.getAll('any[]')).toEqual(['a', 'b']);
    expect(seen?.query.get('local')).toBe('true');
  });

  it('sends a raw query byte for byte: repeated keys, order, percent-encoding and empty values as given', async () => {
    const raw = 'types[]=mention&types[]=favourite&exclude_types%5B%5D=follow&q=caf%C3%A9+au%20lait&empty=&flag&z=1&a=2&z=3';
    await client.request(address, { path: '/api/v1/timelines/public', rawQuery: raw });
    expect(instance.requests[instance.requests.length - 1]?.url).toBe(`/api/v1/timelines/public?${raw}`);
    // The same query as an object is re-serialised: the raw form is the only byte-exact one.
    await client.request(address, { path: '/api/v1/timelines/public', query: raw });
    expect(instance.requests[instance.requests.length - 1]?.url).not.toBe(`/api/v1/timelines/public?${raw}`);
    for (const bad of ['a=b c', 'a=b#c', 'a=\u0001', 'a=\u2028']) {
      await expect(client.request(address, { path: '/api/v1/timelines/public', rawQuery: bad })).rejects.toMatchObject({ statusCode: 400 });
    }
    await expect(client.request(address, { path: '/api/v1/timelines/public', query: { a: 1 }, rawQuery: 'a=1' })).rejects.toThrow(
      /exclusive/,
    );
  });

  it('returns every status with accept: any, and redirects as they are with redirects: return', async () => {
    const missing = await client.request(address, { path: '/api/v1/statuses/1', accept: 'any' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Record not found' });
    instance.fault({ path: '/api/v1/instance', kind: 'status', status: 502, times: 1 });
    expect((await client.request(address, { path: '/api/v1/instance', accept: 'any' })).status).toBe(502);
    instance.fault({ path: '/api/v1/instance', kind: 'redirect', location: 'https://elsewhere.example/', times: 1 });
    const moved = await client.requestRaw(address, { path: '/api/v1/instance', redirects: 'return' });
    expect(moved.status).toBe(302);
    expect(moved.allHeaders.location).toBe('https://elsewhere.example/');
  });

  it('refuses paths that would leave the instance', async () => {
    for (const path of ['//evil.example/x', 'api/v1', '/a?b=c', '/a#b', '/a\\b']) {
      await expect(client.request(address, { path })).rejects.toThrow(/path/);
    }
  });
});

describe('InstanceClient: typed failures', () => {
  it('a token the instance refuses is 401 Authentication required', async () => {
    const error = await failure(client.request(address, { path: '/api/v1/accounts/verify_credentials', token: 'not-a-token' }));
    expect(error).toBeInstanceOf(InstanceTokenRejectedError);
    expect((error as InstanceTokenRejectedError).statusCode).toBe(401);
    expect((error as InstanceTokenRejectedError).error).toBe('Authentication required');
    expect((error as Error).message).not.toContain('not-a-token');
  });

  it('403 and 404 keep their meaning', async () => {
    const readOnly = instance.issueToken(0, 'read');
    const status = instance.homeTimeline()[0] as { id: string };
    expect(
      await failure(client.request(address, { method: 'POST', path: `/api/v1/statuses/${status.id}/favourite`, token: readOnly })),
    ).toBeInstanceOf(InstanceForbiddenError);
    expect(await failure(client.request(address, { path: '/api/v1/statuses/1' }))).toBeInstanceOf(InstanceNotFoundError);
  });

  it.each([
    ['a 500', { kind: 'status', status: 500 }, 'server-error'],
    ['a 429', { kind: 'status', status: 429 }, 'rate-limited'],
    ['slow headers', { kind: 'slow', delayMs: 5_000 }, 'timeout'],
    ['a hang', { kind: 'hang' }, 'timeout'],
    ['a stalled body', { kind: 'stall-body' }, 'timeout'],
    ['a huge chunked body', { kind: 'huge', bytes: 3 * 1024 * 1024 }, 'too-large'],
    ['a huge declared body', { kind: 'huge', bytes: 3 * 1024 * 1024, declareLength: true }, 'too-large'],
    ['a redirect', { kind: 'redirect', location: 'https://mastodon.example/' }, 'redirect'],
    ['bad JSON', { kind: 'bad-json' }, 'bad-response'],
    ['a dropped connection', { kind: 'drop' }, 'unreachable'],
  ] as const)('%s is a 503 (%s)', async (_name, fault, reason) => {
    instance.fault({ path: '/api/v1/timelines/public', ...fault });
    const error = await failure(client.request(address, { path: '/api/v1/timelines/public' }));
    expect(error).toBeInstanceOf(InstanceUnavailableError);
    expect((error as InstanceUnavailableError).statusCode).toBe(503);
    expect((error as InstanceUnavailableError).reason).toBe(reason);
    // The pool still works afterwards.
    instance.clearFaults();
    expect((await client.request(address, { path: '/api/v1/instance' })).status).toBe(200);
  });

  it('an instance that is not listening is a 503 (unreachable)', async () => {
    const closed = await startConnectionCounter();
    await closed.close();
    const error = await failure(client.request(parseInstanceAddress(`127.0.0.1:${closed.port}`, { allowInsecure: true }), { path: '/' }));
    expect(error).toBeInstanceOf(InstanceUnavailableError);
    expect((error as InstanceUnavailableError).reason).toBe('unreachable');
  });

  it('a redirect to loopback is not followed: nothing reaches the target', async () => {
    instance.fault({
      path: '/api/v1/accounts/verify_credentials',
      kind: 'redirect',
      location: `http://127.0.0.1:${counter.port}/api/v1/accounts/verify_credentials`,
    });
    const error = await failure(client.request(address, { path: '/api/v1/accounts/verify_credentials', token: instance.token }));
    expect((error as InstanceUnavailableError).reason).toBe('redirect');
    expect(counter.connections).toBe(0);
  });

  it('the caller can cancel', async () => {
    instance.fault({ path: '/api/v1/timelines/public', kind: 'hang' });
    const controller = new AbortController();
    const pending = failure(client.request(address, { path: '/api/v1/timelines/public', signal: controller.signal }));
    controller.abort(new Error('caller gave up'));
    expect(((await pending) as Error).message).toBe('caller gave up');
  });
});

describe('InstanceClient: secure mode', () => {
  const resolver: Resolver = (hostname) =>
    Promise.resolve(
      {
        'loopback.example': [{ address: '127.0.0.1', family: 4 as const }],
        'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 as const }],
        'private.example': [{ address: '10.1.2.3', family: 4 as const }],
        'metadata.example': [{ address: '169.254.169.254', family: 4 as const }],
        'mixed.example': [
          { address: '93.184.216.34', family: 4 as const },
          { address: '127.0.0.1', family: 4 as const },
        ],
        'ula.example': [{ address: 'fd00::1', family: 6 as const }],
      }[hostname] ?? [],
    );

  it('refuses names that resolve to non-public addresses before connecting', async () => {
    const secure = new InstanceClient({ resolver, connectTimeoutMs: 1_000 });
    try {
      for (const name of ['loopback.example', 'mapped.example', 'private.example', 'metadata.example', 'mixed.example', 'ula.example']) {
        const error = await failure(secure.request(parseInstanceAddress(`${name}:${counter.port}`), { path: '/api/v1/instance' }));
        expect(error).toBeInstanceOf(InstanceAddressError);
        expect((error as InstanceAddressError).statusCode).toBe(400);
      }
      expect(counter.connections).toBe(0);
    } finally {
      await secure.close();
    }
  });

  it('will not speak plain HTTP to an insecure address', async () => {
    const secure = new InstanceClient({ resolver });
    try {
      await expect(secure.request(address, { path: '/api/v1/instance' })).rejects.toThrow(InstanceAddressError);
      expect(instance.count('/api/v1/instance', 'GET')).toBeGreaterThan(0);
    } finally {
      await secure.close();
    }
  });
});

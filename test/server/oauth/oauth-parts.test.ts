/** The OAuth feature's small parts: PKCE, scopes, client credentials, form bodies, settings, the consent page's pieces, the gateway over the social client. */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, UnavailableError, ValidationError } from '../../../src/errors.js';
import { clientCredentials } from '../../../server/oauth/client-credentials.js';
import { describeScopes, escapeHtml, redirectTarget } from '../../../server/oauth/consent-page.js';
import { accountHandle } from '../../../server/oauth/consent-tickets.js';
import { parseFormBody } from '../../../server/oauth/form-body.js';
import { instanceClientGateway, type SocialAddress } from '../../../server/oauth/instance-client-gateway.js';
import { InstanceAddressError } from '../../../server/platform/social/social.service.js';
import { InstanceGatewayError } from '../../../server/oauth/instance-gateway.js';
import { parseScopeList, requireWithin, serviceScopes } from '../../../server/oauth/oauth-scopes.js';
import { readOAuthSettings } from '../../../server/oauth/oauth.settings.js';
import { s256Challenge, verifierMatches } from '../../../server/oauth/pkce.js';

describe('PKCE S256', () => {
  it('matches the RFC 7636 appendix B example', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    expect(s256Challenge(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(verifierMatches(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
  });

  it('refuses a missing, malformed or different verifier', () => {
    const challenge = s256Challenge('a'.repeat(43));
    expect(verifierMatches(undefined, challenge)).toBe(false);
    expect(verifierMatches('a'.repeat(42), s256Challenge('a'.repeat(42)))).toBe(false); // too short
    expect(verifierMatches(`${'a'.repeat(43)}!`, s256Challenge(`${'a'.repeat(43)}!`))).toBe(false); // not unreserved
    expect(verifierMatches('b'.repeat(43), challenge)).toBe(false);
    expect(verifierMatches(challenge, challenge)).toBe(false); // "plain"
  });
});

describe('scopes', () => {
  it("reads Mastodon's vocabulary and maps it onto the service's scopes", () => {
    expect(parseScopeList('read write follow push')).toEqual(['read', 'write', 'follow', 'push']);
    expect(serviceScopes(['read:statuses', 'follow'])).toEqual(['read', 'write']);
    expect(serviceScopes(['read'])).toEqual(['read']);
    expect(() => serviceScopes(['push'])).toThrow(/read or write/);
    expect(() => parseScopeList('read admin:read')).toThrow(/not granted through OAuth/);
    expect(() => parseScopeList('read:')).toThrow(/unknown scope/);
    expect(() => parseScopeList('  ')).toThrow(/at least one/);
  });

  it('lets a parent scope cover its granular scopes, not the other way round', () => {
    expect(() => requireWithin(['read:statuses', 'read'], ['read', 'write'], 'x')).not.toThrow();
    expect(() => requireWithin(['read'], ['read:statuses'], 'x')).toThrow(/exceeds/);
    expect(() => requireWithin(['write'], ['read'], 'x')).toThrow(/exceeds/);
  });
});

describe('client credentials', () => {
  const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

  it('reads HTTP Basic (form-urlencoded parts) or the body', () => {
    expect(clientCredentials(basic('my%20id:s%3Acret+x'), {})).toEqual({ clientId: 'my id', clientSecret: 's:cret x' });
    expect(clientCredentials(undefined, { client_id: 'a', client_secret: 'b' })).toEqual({ clientId: 'a', clientSecret: 'b' });
    // A bearer token in Authorization is not client authentication.
    expect(clientCredentials('Bearer rsv_x', { client_id: 'a', client_secret: 'b' })).toEqual({ clientId: 'a', clientSecret: 'b' });
  });

  it('refuses missing, malformed and doubled credentials', () => {
    expect(() => clientCredentials(undefined, {})).toThrow(expect.objectContaining({ code: 'invalid_client' }));
    // client_id alone names a public client (the service then checks it is one).
    expect(clientCredentials(undefined, { client_id: 'a' })).toEqual({ clientId: 'a', clientSecret: undefined });
    expect(() => clientCredentials(basic('no-colon'), {})).toThrow(expect.objectContaining({ code: 'invalid_client' }));
    expect(() => clientCredentials(basic('a:%E0%A4%A'), {})).toThrow(expect.objectContaining({ code: 'invalid_client' }));
    expect(() => clientCredentials(basic('a:b'), { client_secret: 'b' })).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => clientCredentials(basic('a:b'), { client_id: 'c' })).toThrow(expect.objectContaining({ code: 'invalid_client' }));
  });
});

describe('form bodies', () => {
  it('turns repeated and [] parameters into arrays and never touches prototypes', () => {
    const body = parseFormBody('a=1&b=2&b=3&c[]=x&__proto__=p&constructor=k');
    expect(body).toEqual({ a: '1', b: ['2', '3'], c: ['x'], ['__proto__']: 'p', constructor: 'k' });
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).p).toBeUndefined();
  });
});

describe('settings', () => {
  it('reads the token lifetimes, 24 h and 30 days by default', () => {
    expect(readOAuthSettings({})).toEqual({ accessTokenTtlSeconds: 86_400, refreshTokenTtlSeconds: 2_592_000 });
    expect(readOAuthSettings({ RECSVC_OAUTH_ACCESS_TOKEN_TTL: '3600', RECSVC_OAUTH_REFRESH_TOKEN_TTL: '7200' })).toEqual({
      accessTokenTtlSeconds: 3600,
      refreshTokenTtlSeconds: 7200,
    });
    expect(() => readOAuthSettings({ RECSVC_OAUTH_ACCESS_TOKEN_TTL: '1h' })).toThrow(/RECSVC_OAUTH_ACCESS_TOKEN_TTL/);
    expect(() => readOAuthSettings({ RECSVC_OAUTH_ACCESS_TOKEN_TTL: '30' })).toThrow(/seconds from 60 to 315,360,000/);
    expect(() => readOAuthSettings({ RECSVC_OAUTH_REFRESH_TOKEN_TTL: '3600' })).toThrow(/longer than/);
  });
});

describe("the consent page's pieces", () => {
  it('escapes the five HTML-significant characters and nothing else', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a> é`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt; é');
  });

  it('describes what the scopes grant here: follow and write:* as write, read:* as read, push as nothing', () => {
    expect(describeScopes(['read:statuses', 'push'])).toEqual([expect.stringMatching(/^See your/)]);
    expect(describeScopes(['follow'])).toEqual([expect.stringMatching(/^Record interactions/)]);
    expect(describeScopes(['write:favourites', 'read'])).toHaveLength(2);
  });

  it("names the redirect's host, or an app's scheme, with the CSP source that lets the form's redirect through", () => {
    expect(redirectTarget('https://Client.Example:8443/cb?x=1')).toEqual({
      shown: 'client.example:8443',
      cspSource: 'https://client.example:8443',
    });
    expect(redirectTarget('com.example.app:/oauth')).toEqual({
      shown: 'the app that opens com.example.app: links',
      cspSource: 'com.example.app:',
    });
    // An IPv6 literal has no CSP host-source spelling: the scheme alone.
    expect(redirectTarget('http://[::1]:8080/cb')).toEqual({ shown: '[::1]:8080', cspSource: 'http:' });
  });

  it('writes accounts as @name@instance', () => {
    expect(accountHandle('alice', 'social.example')).toBe('@alice@social.example');
    expect(accountHandle('bob@other.example', 'social.example')).toBe('@bob@other.example');
  });
});

describe('the gateway over the social client', () => {
  const parse = (name: string): SocialAddress => {
    if (name === 'localhost') throw new InstanceAddressError('names a local or private host');
    return { host: name.toLowerCase(), origin: `https://${name.toLowerCase()}` };
  };
  const failing = (error: Error) => instanceClientGateway({ request: () => Promise.reject(error) }, parse);

  it('builds the authorize URL on the canonical origin and reads the answers', async () => {
    const calls: Array<{ path: string; body?: unknown; token?: string }> = [];
    const answers: Record<string, unknown> = {
      '/api/v1/apps': { client_id: 'cid', client_secret: 'csecret' },
      '/oauth/token': { access_token: 'at' },
      '/api/v1/accounts/verify_credentials': { id: 109, acct: 'alice' },
    };
    const gateway = instanceClientGateway(
      {
        request: async (_address, request) => {
          calls.push({
            path: request.path,
            ...(request.body !== undefined ? { body: request.body } : {}),
            ...(request.token ? { token: request.token } : {}),
          });
          return { status: 200, body: answers[request.path] };
        },
      },
      parse,
    );
    expect(gateway.canonicalInstance('Social.Example')).toBe('social.example');
    expect(
      gateway.authorizeUrl('social.example', { clientId: 'cid', redirectUri: 'https://r/cb', scopes: 'read:accounts', state: 's t' }),
    ).toBe(
      'https://social.example/oauth/authorize?response_type=code&client_id=cid&redirect_uri=https%3A%2F%2Fr%2Fcb&scope=read%3Aaccounts&state=s+t',
    );
    expect(
      await gateway.registerApp('social.example', { clientName: 'recsvc', redirectUri: 'https://r/cb', scopes: 'read:accounts' }),
    ).toEqual({
      clientId: 'cid',
      clientSecret: 'csecret',
    });
    const credentials = { clientId: 'cid', clientSecret: 'csecret' };
    expect(
      await gateway.exchangeCode('social.example', { credentials, redirectUri: 'https://r/cb', code: 'c', scopes: 'read:accounts' }),
    ).toEqual({
      accessToken: 'at',
    });
    expect(await gateway.verifyCredentials('social.example', 'at')).toEqual({ id: '109', acct: 'alice' });
    expect(calls[1]).toEqual({
      path: '/oauth/token',
      body: {
        grant_type: 'authorization_code',
        code: 'c',
        client_id: 'cid',
        client_secret: 'csecret',
        redirect_uri: 'https://r/cb',
        scope: 'read:accounts',
      },
    });
    expect(calls[2]).toEqual({ path: '/api/v1/accounts/verify_credentials', token: 'at' });
  });

  it("reads the client's typed errors by their meaning", async () => {
    const failure = async (gateway: ReturnType<typeof failing>) =>
      gateway.verifyCredentials('social.example', 'at').catch((error: unknown) => (error as InstanceGatewayError).failure);
    expect(await failure(failing(new UnavailableError('The social instance timed out')))).toBe('unavailable');
    expect(await failure(failing(new AuthenticationError('refused')))).toBe('rejected');
    expect(await failure(failing(new ValidationError('refused the request (status 422)')))).toBe('rejected');
    expect(await failure(failing(new InstanceAddressError('resolves to a private address')))).toBe('refused');
    expect(() => failing(new Error('x')).canonicalInstance('localhost')).toThrow(InstanceGatewayError);
    await expect(failing(new TypeError('a bug')).verifyCredentials('social.example', 'at')).rejects.toThrow(TypeError);
  });

  it('treats answers that are not what Mastodon sends as unavailable', async () => {
    const answering = (body: unknown) => instanceClientGateway({ request: async () => ({ status: 200, body }) }, parse);
    await expect(answering({ id: '../x' }).verifyCredentials('social.example', 'at')).rejects.toMatchObject({ failure: 'unavailable' });
    await expect(
      answering(null).registerApp('social.example', { clientName: 'r', redirectUri: 'https://r', scopes: 'read' }),
    ).rejects.toMatchObject({
      failure: 'unavailable',
    });
    await expect(
      answering({ token_type: 'Bearer' }).exchangeCode('social.example', {
        credentials: { clientId: 'a', clientSecret: 'b' },
        redirectUri: 'https://r',
        code: 'c',
        scopes: 'read',
      }),
    ).rejects.toMatchObject({ failure: 'unavailable' });
  });
});

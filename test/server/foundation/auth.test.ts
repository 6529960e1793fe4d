import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUser, callerIdentity } from '../../../server/platform/plugins/access.js';
import { revokeTokenById, createToken } from '../../../server/platform/auth/token.service.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    configure: (app) => {
      app.get('/api/v1/test/admin', { config: { access: { scope: 'admin' } } }, async (request) => ({
        user: callerIdentity(request).userId,
      }));
      app.get<{ Params: { userId: string } }>(
        '/api/v1/test/users/:userId',
        { config: { access: { scope: 'read', user: 'resource', owner: 'the user in the path' } } },
        async (request) => {
          const identity = authorizeUser(request, request.params.userId);
          return { by: identity.userId };
        },
      );
    },
  });
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('authentication and permissions', () => {
  it('401 Authentication required without a token', async () => {
    const response = await get('/api/v1/test/admin');
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: 'Authentication required', status_code: 401 });
  });

  it('401 for an unknown, malformed, expired or revoked token', async () => {
    const expired = await t.token(['admin'], { ttlSeconds: -1 });
    const revoked = await createToken(t.database.db, { scopes: ['admin'], tier: 'authenticated', userId: null, ttlSeconds: 60 });
    await revokeTokenById(t.database.db, revoked.info.id);
    for (const headers of [bearer('rsv_unknown'), bearer(expired), bearer(revoked.token), { authorization: 'Basic abc' }]) {
      const response = await get('/api/v1/test/admin', headers);
      expect(response.statusCode, JSON.stringify(headers)).toBe(401);
      expect(response.json().message).toMatch(/invalid|expired|revoked/);
    }
  });

  it('403 Forbidden for a valid token without the scope', async () => {
    const response = await get('/api/v1/test/admin', bearer(await t.token(['read', 'write'], { userId: 'u1' })));
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error: 'Forbidden', status_code: 403 });
  });

  it('200 with the scope, and the token is usable only as a hash lookup', async () => {
    const response = await get('/api/v1/test/admin', await t.adminHeaders());
    expect(response.statusCode).toBe(200);
    const rows = await t.database.db.selectFrom('tokens').select(['token_hash']).execute();
    const secret = (await t.adminHeaders()).authorization!.slice('Bearer '.length);
    expect(rows.every((row) => row.token_hash !== secret && row.token_hash.length === 64)).toBe(true);
  });

  it("lets a user read only their own data; admin reads anyone's", async () => {
    const alice = await t.userHeaders('alice');
    expect((await get('/api/v1/test/users/alice', alice)).statusCode).toBe(200);
    expect((await get('/api/v1/test/users/bob', alice)).statusCode).toBe(403);
    expect((await get('/api/v1/test/users/bob', await t.adminHeaders())).statusCode).toBe(200);
    expect((await get('/api/v1/test/users/bob')).statusCode).toBe(401);
  });
});

/**
 * Every registered route declares who may call it (server/platform/auth/access-rule.ts), and the
 * one access plugin enforces it: the inventory comes from fastify's own route tree, so a
 * route added anywhere — a feature, a plugin, a third party — is seen. Then a sweep:
 * anonymous callers get 401 on every non-public route (a bad body does not change
 * that), a token without the scope gets 403, and on every route about one user's data
 * another user's token gets 403 while the user's own token and an admin get through.
 * `PRINT_ACCESS_TABLE=1` prints the README's table of routes and rules.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAccessRule, isUserRule, type AccessRule, type UserRule } from '../../../server/platform/auth/access-rule.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

interface RegisteredRoute {
  method: string;
  url: string;
}

/** Every method and URL pattern in the app's router, read from `printRoutes`' tree. */
function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const url = (depth === 0 ? '' : prefixes[depth - 1]!) + match[2]!;
    prefixes[depth] = url;
    prefixes.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, url });
  }
  return routes;
}

const label = (route: RegisteredRoute) => `${route.method} ${route.url}`;

/** A concrete URL for a pattern: path parameters and wildcards filled with `value`. */
const fill = (url: string, value: string) => url.replace(/:[a-z_]+/gi, value).replace(/\*$/, 'x');

interface Aimed {
  url: string;
  payload?: unknown;
}

let t: TestApp;
let routes: Array<RegisteredRoute & { rule: AccessRule | undefined }>;
const interactionOf = new Map<string, string>();

/** A valid request of each route about one user's data, aimed at `user` (HEAD uses its GET's). */
const USER_REQUESTS: Record<string, (user: string) => Aimed> = {
  'GET /api/v1/recommendations': (user) => ({ url: `/api/v1/recommendations?user_id=${user}&limit=5` }),
  'POST /api/v1/recommendations': (user) => ({ url: '/api/v1/recommendations', payload: { user_id: user, limit: 5 } }),
  'POST /api/v1/recommendations/seamless': (user) => ({
    url: '/api/v1/recommendations/seamless',
    payload: { user_id: user, timeline_type: 'home', existing_statuses: [{ id: 'x1', content: 'hello' }] },
  }),
  'POST /api/v1/recommendations/feedback': (user) => ({
    url: '/api/v1/recommendations/feedback',
    payload: { user_id: user, post_id: postId(2), feedback: 'less' },
  }),
  'GET /api/v1/recommendations/preferences': (user) => ({ url: `/api/v1/recommendations/preferences?user_id=${user}` }),
  'PUT /api/v1/recommendations/preferences': (user) => ({
    url: '/api/v1/recommendations/preferences',
    payload: { user_id: user, muted_tags: ['dogs'] },
  }),
  'POST /api/v1/interactions': (user) => ({
    url: '/api/v1/interactions',
    payload: { user_id: user, post_id: postId(3), action_type: 'bookmark' },
  }),
  'POST /api/v1/interactions/batch': (user) => ({
    url: '/api/v1/interactions/batch',
    payload: { interactions: [{ user_id: user, post_id: postId(3), action_type: 'reblog' }] },
  }),
  'POST /api/v1/interactions/undo': (user) => ({
    url: '/api/v1/interactions/undo',
    payload: { user_id: user, post_id: postId(1), action_type: 'reblog' },
  }),
  'DELETE /api/v1/interactions/:id': (user) => ({ url: `/api/v1/interactions/${interactionOf.get(user)}` }),
  'GET /api/v1/interactions': (user) => ({ url: `/api/v1/interactions?user_id=${user}` }),
  'GET /api/v1/settings': (user) => ({ url: `/api/v1/settings?user_id=${user}` }),
  'PATCH /api/v1/settings': (user) => ({ url: '/api/v1/settings', payload: { user_id: user, include_reblogs: false } }),
  'GET /api/v1/privacy': (user) => ({ url: `/api/v1/privacy?user_id=${user}` }),
  'PATCH /api/v1/privacy': (user) => ({ url: `/api/v1/privacy?user_id=${user}`, payload: { tracking_level: 'full' } }),
  'GET /api/v1/privacy/export': (user) => ({ url: `/api/v1/privacy/export?user_id=${user}` }),
  'DELETE /api/v1/privacy/data': (user) => ({ url: `/api/v1/privacy/data?user_id=${user}` }),
  'POST /api/v1/analytics/events': (user) => ({
    url: '/api/v1/analytics/events',
    payload: { events: [{ type: 'session_start', user_id: user, session_id: `${user}-s` }] },
  }),
};

const send = (method: string, aimed: Aimed, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: method as 'GET',
    url: aimed.url,
    headers,
    ...(aimed.payload === undefined ? {} : { payload: aimed.payload as object }),
  });

/** Seeds posts and, for each user, a favourite of post 1 (which DELETE aims at) and a reblog of it (which undo aims at). */
async function seed(users: string[]): Promise<void> {
  const admin = await t.adminHeaders();
  const statuses = [1, 2, 3].map((n) => makeStatus({ n, author: `a${n}`, tags: ['cats'] }));
  expect((await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: admin, payload: { statuses } })).statusCode).toBe(201);
  for (const user of users) {
    const logged = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers: admin,
      payload: { user_id: user, post_id: postId(1), action_type: 'favorite' },
    });
    expect(logged.statusCode).toBe(201);
    interactionOf.set(user, logged.json().data.id);
    const reblog = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers: admin,
      payload: { user_id: user, post_id: postId(1), action_type: 'reblog' },
    });
    expect(reblog.statusCode).toBe(201);
  }
}

beforeAll(async () => {
  t = await createTestApp();
  routes = registeredRoutes(t.app).map((route) => ({ ...route, rule: t.app.accessRule(route.method, route.url) }));
  await seed(['owner', 'admin-target']);
});
afterAll(() => t.close());

describe('access rules', () => {
  it('are declared for every registered route', () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.filter((route) => route.rule === undefined).map(label)).toEqual([]);
    if (process.env.PRINT_ACCESS_TABLE) {
      const rows = routes
        .filter((route) => route.method !== 'HEAD')
        .map((route) => `| \`${route.method}\` | \`${route.url}\` | ${describeAccessRule(route.rule!)} |`);
      console.log(['| method | path | who may call it |', '|---|---|---|', ...rows].join('\n'));
    }
  });

  it('match the OpenAPI document: public operations have no security requirement, the rest need a bearer token', async () => {
    const document = (await t.app.inject({ url: '/docs/json' })).json<{
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    }>();
    const mismatched: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const rule = t.app.accessRule(method.toUpperCase(), path.replace(/\{([^}]+)\}/g, ':$1'));
        if ((rule === 'public') !== (operation.security?.length === 0)) mismatched.push(`${method} ${path}: ${JSON.stringify(rule)}`);
      }
    }
    expect(mismatched).toEqual([]);
  });

  it('answer 401 to an anonymous caller or a bad token on every non-public route, before looking at the body', async () => {
    const problems: string[] = [];
    for (const route of routes.filter((r) => r.rule !== 'public')) {
      const withBody = ['POST', 'PUT', 'PATCH'].includes(route.method);
      for (const headers of [{}, { authorization: 'Bearer rsv_not_a_token' }] as Array<Record<string, string>>) {
        const response = await send(
          route.method,
          { url: fill(route.url, '1'), ...(withBody ? { payload: { not: 'valid' } } : {}) },
          headers,
        );
        const body = route.method === 'HEAD' ? undefined : response.json();
        if (response.statusCode !== 401 || (body !== undefined && body.error !== 'Authentication required')) {
          problems.push(`${label(route)} ${JSON.stringify(headers)}: ${response.statusCode} ${response.body.slice(0, 120)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('let anonymous callers through on public routes', async () => {
    const problems: string[] = [];
    for (const route of routes.filter((r) => r.rule === 'public')) {
      const headers: Record<string, string> =
        route.method === 'OPTIONS' ? { origin: 'https://elk.zone', 'access-control-request-method': 'POST' } : {};
      const response = await send(route.method, { url: route.url === '*' ? '/api/v1/interactions' : fill(route.url, postId(1)) }, headers);
      if (response.statusCode === 401 || response.statusCode === 403) problems.push(`${label(route)}: ${response.statusCode}`);
    }
    expect(problems).toEqual([]);
  });

  it('answer 403 to a valid token without the scope', async () => {
    const scopeRoutes = routes.filter((r) => r.rule !== 'public' && r.rule !== undefined && !isUserRule(r.rule));
    expect(scopeRoutes.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const route of scopeRoutes) {
      const scope = (route.rule as { scope: string }).scope;
      const lacking = await t.token(scope === 'admin' ? ['read', 'write'] : scope === 'read' ? ['write'] : ['read'], { userId: 'owner' });
      const withBody = ['POST', 'PUT', 'PATCH'].includes(route.method);
      const response = await send(
        route.method,
        { url: fill(route.url, '1'), ...(withBody ? { payload: {} } : {}) },
        { authorization: `Bearer ${lacking}` },
      );
      if (response.statusCode !== 403 || (route.method !== 'HEAD' && response.json().error !== 'Forbidden'))
        problems.push(`${label(route)}: ${response.statusCode}`);
    }
    expect(problems).toEqual([]);
  });

  it("refuse another user's token (and a read-only one where the rule needs write) with 403 on every route about one user's data, and let the user and an admin through", async () => {
    // The erasure revokes the owner's tokens: it goes last.
    const erasesOwner = (route: RegisteredRoute) => Number(label(route) === 'DELETE /api/v1/privacy/data');
    const userRoutes = routes.filter((r) => isUserRule(r.rule)).sort((a, b) => erasesOwner(a) - erasesOwner(b));
    const requestOf = (route: RegisteredRoute) => USER_REQUESTS[`${route.method === 'HEAD' ? 'GET' : route.method} ${route.url}`];
    expect(userRoutes.filter((route) => !requestOf(route)).map(label), 'user routes without a request in USER_REQUESTS').toEqual([]);
    expect(
      Object.keys(USER_REQUESTS).filter((key) => !userRoutes.some((route) => label(route) === key)),
      'stale USER_REQUESTS',
    ).toEqual([]);
    const intruder = await t.userHeaders('intruder');
    const admin = await t.adminHeaders();
    const owner = await t.userHeaders('owner');
    const ownerReadOnly = { authorization: `Bearer ${await t.token(['read'], { userId: 'owner' })}` };
    const problems: string[] = [];
    for (const route of userRoutes) {
      const aimed = requestOf(route)!;
      const refusals = [['another user', intruder]] as Array<[string, Record<string, string>]>;
      if ((route.rule as UserRule).scope === 'write') refusals.push(['the owner without `write`', ownerReadOnly]);
      for (const [who, headers] of refusals) {
        const refused = await send(route.method, aimed('owner'), headers);
        if (refused.statusCode !== 403 || (route.method !== 'HEAD' && refused.json().error !== 'Forbidden')) {
          problems.push(`${label(route)} by ${who}: ${refused.statusCode} ${refused.body.slice(0, 120)}`);
        }
      }
      for (const [who, headers, user] of [
        ['the owner', owner, 'owner'],
        ['an admin', admin, 'admin-target'],
      ] as const) {
        const response = await send(route.method, aimed(user), headers);
        if (response.statusCode >= 400) problems.push(`${label(route)} by ${who}: ${response.statusCode} ${response.body.slice(0, 120)}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

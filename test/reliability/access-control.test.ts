/**
 * Access-control sweep: a user-bound read/write token aimed at another user's data
 * on every user-scoped route of the OpenAPI document (a `user_id` anywhere in its
 * parameters or body, or an interaction id in its path), and at admin-only routes.
 * First the same request for the token's own user must succeed (so the request is
 * valid and a refusal is about ownership); then, aimed at the victim — directly, by
 * a second `user_id` in the query, or hidden in a batch — it must be 403 or 404 in
 * the spec's body, show none of the victim's data, and change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedTables, openChecksum } from './support/db-checksum.js';
import { fetchOpenApi, fillPath, listOperations, type JsonSchema, type Operation } from './support/openapi-operations.js';
import { readFetchResponse, type RawResponse } from './support/raw-http.js';
import { killStartedServers, mintToken, startRecsvc, type RecsvcServer } from './support/recsvc-server.js';
import { experimentBody, secretOf, seedWorld, type World } from './support/seed-world.js';
import { specProblems } from './support/spec-conformance.js';

const VICTIM = 'ac-victim';
const ATTACKER = 'ac-attacker';

let server: RecsvcServer;
let world: World;
let attackerToken: string;
let operations: Operation[];

beforeAll(async () => {
  server = await startRecsvc({ args: ['--rate-limit', 'off'], env: { RECSVC_AGENT_INTERVAL: '35791' } });
  const admin = await mintToken(server.dbPath);
  attackerToken = await mintToken(server.dbPath, { scopes: 'read,write', user: ATTACKER });
  world = await seedWorld(server.baseUrl, admin, [VICTIM, ATTACKER]);
  operations = listOperations(await fetchOpenApi(server.baseUrl));
});

afterAll(killStartedServers);

interface Aimed {
  pathValues?: Record<string, string>;
  query?: Array<[string, string]>;
  body?: unknown;
}

/** A valid request of each user-scoped route, aimed at `user`'s data. */
const TEMPLATES: Record<string, (user: string, w: World) => Aimed> = {
  'GET /api/v1/interactions': (user) => ({ query: [['user_id', user]] }),
  'POST /api/v1/interactions': (user, w) => ({ body: { user_id: user, post_id: w.postIds[15], action_type: 'favorite' } }),
  'POST /api/v1/interactions/batch': (user, w) => ({
    body: { interactions: [{ user_id: user, post_id: w.postIds[16], action_type: 'favorite' }] },
  }),
  'POST /api/v1/interactions/undo': (user, w) => ({
    body: { user_id: user, post_id: w.postIds[w.users.indexOf(user) * 3], action_type: 'favorite' },
  }),
  'DELETE /api/v1/interactions/{id}': (user, w) => ({ pathValues: { id: w.interactionIds[user]![2]! } }),
  'POST /api/v1/analytics/events': (user) => ({
    body: { events: [{ type: 'session_start', user_id: user, session_id: `${user}-ac-session` }] },
  }),
  'GET /api/v1/recommendations': (user) => ({ query: [['user_id', user]] }),
  'POST /api/v1/recommendations': (user) => ({ body: { user_id: user, limit: 5 } }),
  'POST /api/v1/recommendations/seamless': (user) => ({
    body: { user_id: user, timeline_type: 'home', existing_statuses: [{ id: 'x1', content: 'hello' }] },
  }),
  'POST /api/v1/recommendations/feedback': (user, w) => ({ body: { user_id: user, post_id: w.postIds[12], feedback: 'less' } }),
  'GET /api/v1/recommendations/preferences': (user) => ({ query: [['user_id', user]] }),
  'PUT /api/v1/recommendations/preferences': (user) => ({ body: { user_id: user, muted_tags: ['ac-muted'] } }),
  'GET /api/v1/settings': (user) => ({ query: [['user_id', user]] }),
  'PATCH /api/v1/settings': (user) => ({ body: { user_id: user, include_reblogs: false } }),
  'GET /api/v1/privacy': (user) => ({ query: [['user_id', user]] }),
  'PATCH /api/v1/privacy': (user) => ({ query: [['user_id', user]], body: { tracking_level: 'full' } }),
  'GET /api/v1/privacy/export': (user) => ({ query: [['user_id', user]] }),
  'DELETE /api/v1/privacy/data': (user) => ({ query: [['user_id', user]] }),
};

/** Erasing the token's own user's data revokes the token: its own request is sent after every other request. */
const ERASES_OWNER = 'DELETE /api/v1/privacy/data';

function mentionsUserId(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const node = schema as JsonSchema;
  if (node.properties && typeof node.properties === 'object' && 'user_id' in node.properties) return true;
  return Object.values(node).some((value) => mentionsUserId(value));
}

/** Routes that touch one user's data. */
function isUserScoped(op: Operation): boolean {
  return op.parameters.some((p) => p.name === 'user_id') || mentionsUserId(op.body) || /^\/api\/v1\/interactions\/\{id\}$/.test(op.path);
}

/** Routes only an admin may call (decisions.md: experiments; README: post writes). */
function isAdminOnly(op: Operation): boolean {
  return op.path.startsWith('/api/v1/analytics/experiments') || (op.path.startsWith('/api/v1/posts') && op.method !== 'GET');
}

async function send(op: Operation, aimed: Aimed, rawQuery?: string): Promise<RawResponse> {
  const path = fillPath(op.path, Object.fromEntries(Object.entries(aimed.pathValues ?? {}).map(([k, v]) => [k, encodeURIComponent(v)])));
  const query = [
    ...(aimed.query ?? []).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
    ...(rawQuery ? [rawQuery] : []),
  ].join('&');
  const response = await fetch(`${server.baseUrl}${path}${query ? `?${query}` : ''}`, {
    method: op.method,
    headers: { authorization: `Bearer ${attackerToken}`, ...(aimed.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(aimed.body === undefined ? {} : { body: JSON.stringify(aimed.body) }),
  });
  return readFetchResponse(response);
}

/** Path values for admin-only routes: an existing experiment or post. */
function adminPathValues(op: Operation): Record<string, string> {
  const values: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path'))
    values[p.name] = op.path.includes('/experiments/') ? String(world.experimentIds[1]) : world.postIds[0]!;
  return values;
}

describe('a user-bound token against another user', () => {
  it('is refused on every user-scoped and admin-only route, sees none of the victim data, changes nothing', async () => {
    const scoped = operations.filter(isUserScoped);
    const adminOnly = operations.filter((op) => !isUserScoped(op) && isAdminOnly(op));
    console.log(`access control: ${scoped.length} user-scoped routes, ${adminOnly.length} admin-only routes`);
    expect(scoped.length).toBeGreaterThanOrEqual(Object.keys(TEMPLATES).length);
    const problems: string[] = [];
    const checksum = openChecksum(server.dbPath);
    const victimSecret = secretOf(VICTIM);

    const expectRefused = async (label: string, response: RawResponse, before: Record<string, string>): Promise<void> => {
      const text = response.body.toString('utf8');
      if (response.status !== 403 && response.status !== 404)
        problems.push(`${label}: ${response.status}, not 403/404: ${text.slice(0, 200)}`);
      if (text.includes(victimSecret)) problems.push(`${label}: the response shows the victim's data`);
      for (const p of specProblems(response)) problems.push(`${label}: ${p}`);
      const changed = changedTables(before, checksum.tables());
      if (changed.length > 0) problems.push(`${label}: changed ${changed.join(', ')}`);
    };

    // Requests that end the attacker's token, sent after every other.
    const last: Array<() => Promise<void>> = [];
    try {
      for (const op of scoped) {
        const template = TEMPLATES[op.label];
        if (!template) {
          problems.push(`${op.label} is user-scoped but has no template here: add one`);
          continue;
        }
        // The same request for the attacker's own data is fine: the request itself is valid.
        const tryOwn = async (): Promise<void> => {
          const own = await send(op, template(ATTACKER, world));
          if (own.status >= 400)
            problems.push(`${op.label} for the token's own user: ${own.status} ${own.body.toString('utf8').slice(0, 200)}`);
        };
        if (op.label !== ERASES_OWNER) await tryOwn();

        const aimed = template(VICTIM, world);
        let before = checksum.tables();
        await expectRefused(`${op.label} aimed at the victim`, await send(op, aimed), before);
        if (aimed.query?.some(([k]) => k === 'user_id')) {
          // A second user_id: the one checked and the one used must not differ.
          for (const order of [
            [ATTACKER, VICTIM],
            [VICTIM, ATTACKER],
          ]) {
            const query = (aimed.query ?? []).filter(([k]) => k !== 'user_id');
            before = checksum.tables();
            const response = await send(op, { ...aimed, query }, order.map((u) => `user_id=${u}`).join('&'));
            // A 400 (one value expected) is a fine answer too; data of the victim is not.
            if (response.status !== 400) await expectRefused(`${op.label} with user_id=${order.join(',')}`, response, before);
          }
        }
        const events = (aimed.body as { events?: unknown[] } | undefined)?.events;
        if (events) {
          // The victim's event hidden behind one of the attacker's own.
          const mixed = {
            ...(aimed.body as object),
            events: [...(template(ATTACKER, world).body as { events: unknown[] }).events, ...events],
          };
          before = checksum.tables();
          await expectRefused(`${op.label} with the victim's event second in the batch`, await send(op, { ...aimed, body: mixed }), before);
        }
        if (op.label === ERASES_OWNER) last.push(tryOwn);
      }

      for (const op of adminOnly) {
        const body =
          op.method === 'GET' || op.method === 'DELETE'
            ? undefined
            : op.path === '/api/v1/analytics/experiments'
              ? experimentBody('ac')
              : op.path.endsWith('/batch')
                ? { statuses: [] }
                : op.body
                  ? {}
                  : undefined;
        const before = checksum.tables();
        const response = await send(op, { pathValues: adminPathValues(op), ...(body !== undefined ? { body } : {}) });
        // Admin-only: 403 whatever the body (credentials and scope come before validation).
        if (response.status !== 403) problems.push(`${op.label} with a user token: ${response.status}, not 403`);
        await expectRefused(`${op.label} with a user token`, response, before);
      }
      for (const request of last) await request();
    } finally {
      checksum.close();
    }
    expect(problems).toEqual([]);
  }, 120_000);
});

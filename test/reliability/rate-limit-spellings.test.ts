/**
 * Rate limits through every spelling of a path: percent-encoded letters
 * (`/%61pi/v1`, `/api/v%31`, `/api/v1/%72ecommendations`), double slashes, a
 * trailing slash, case variants, dot segments, `;` parameters, absolute-form targets
 * written on a raw socket, unmatched paths and bad tokens. Each spelling, in a burst
 * of its own, is throttled with 429 (spec body, Retry-After) once the caller's limit
 * is spent; and a caller whose budget is spent is refused under every spelling.
 *
 * A real `recsvc serve` with RECSVC_RATE_LIMIT_SCALE=0.1 (anonymous 2/min,
 * authenticated 6/min, recommendations 3/min) behind a trusted proxy on 127.0.0.1,
 * so that each anonymous burst comes from its own X-Forwarded-For address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOutcome, jsonBody, sendRaw, type RawOutcome, type RawRequest } from './support/raw-http.js';
import { killStartedServers, mintToken, startRecsvc, type RecsvcServer } from './support/recsvc-server.js';
import { errorBodyProblems } from './support/spec-conformance.js';
import { sleep } from './support/suite-settings.js';

const SCALE = 0.1;
const ANONYMOUS_PER_MINUTE = 2;
const AUTHENTICATED_PER_MINUTE = 6;
const RECOMMENDATIONS_PER_MINUTE = 3;

let server: RecsvcServer;
let nextAddress = 1;

/** A fresh client address for an anonymous caller (documentation range, behind the trusted proxy). */
function freshAddress(): string {
  const n = nextAddress++;
  return `198.51.${Math.floor(n / 250)}.${(n % 250) + 1}`;
}

/** Spellings of one route: [description, target or absolute-form target]. */
function spellingsOf(path: string, query: string, port: number): Array<[string, string]> {
  const [, first = '', second = '', ...rest] = path.split('/');
  const tail = rest.join('/');
  const resource = tail.split('/')[0] ?? '';
  const encodedFirstLetter = `%${resource.charCodeAt(0).toString(16)}${resource.slice(1)}${tail.slice(resource.length)}`;
  return [
    ['canonical', `${path}${query}`],
    ['/%61pi/v1', `/%61${first.slice(1)}/${second}/${tail}${query}`],
    ['/api/v%31', `/${first}/v%31/${tail}${query}`],
    ['first letter of the resource encoded', `/${first}/${second}/${encodedFirstLetter}${query}`],
    [
      'last letter encoded',
      `${path.slice(0, -1)}%${path
        .charCodeAt(path.length - 1)
        .toString(16)
        .toUpperCase()}${query}`,
    ],
    ['double slash in front', `/${path}${query}`],
    ['double slash inside', `/${first}//${second}/${tail}${query}`],
    ['trailing slash', `${path}/${query}`],
    ['upper case', `${path.toUpperCase()}${query}`],
    ['mixed case', `/${first[0]!.toUpperCase()}${first.slice(1)}/${second}/${tail}${query}`],
    ['dot segment', `/${first}/${second}/./${tail}${query}`],
    ['dot-dot segment', `/${first}/${second}/x/../${tail}${query}`],
    ['; parameter', `${path};x=1${query}`],
    ['absolute-form', `http://127.0.0.1:${port}${path}${query}`],
    ['absolute-form, other host', `http://evil.example${path}${query}`],
    ['absolute-form, encoded', `http://127.0.0.1:${port}/%61${first.slice(1)}/${second}/${tail}${query}`],
  ];
}

/** Waits out the last seconds of a clock minute, so that a burst stays inside one fixed window. */
async function awayFromMinuteEdge(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 56_000) await sleep(60_000 - intoMinute + 250);
}

async function burst(count: number, request: () => RawRequest): Promise<RawOutcome[]> {
  await awayFromMinuteEdge();
  const outcomes: RawOutcome[] = [];
  for (let i = 0; i < count; i++) outcomes.push(await sendRaw(server.port, request()));
  return outcomes;
}

const statusOf = (o: RawOutcome): string => (o.kind === 'response' ? String(o.response.status) : o.kind);

/** Problems with a burst: more than `limit` let through, or the last answer not a proper 429. */
function burstProblems(label: string, outcomes: RawOutcome[], limit: number): string[] {
  const statuses = outcomes.map(statusOf);
  const passed = statuses.filter((s) => s !== '429').length;
  const problems: string[] = [];
  if (passed > limit) problems.push(`${label}: ${passed} of ${statuses.length} passed, limit ${limit} (${statuses.join(' ')})`);
  const last = outcomes[outcomes.length - 1]!;
  if (last.kind !== 'response' || last.response.status !== 429)
    problems.push(`${label}: last answer ${describeOutcome(last).slice(0, 160)}`);
  else {
    for (const p of errorBodyProblems(last.response)) problems.push(`${label}: 429 ${p}`);
    if (last.response.headers['x-ratelimit-remaining'] !== '0')
      problems.push(`${label}: 429 with X-RateLimit-Remaining ${last.response.headers['x-ratelimit-remaining']}`);
  }
  return problems;
}

beforeAll(async () => {
  server = await startRecsvc({ args: ['--trust-proxy', '127.0.0.1'], env: { RECSVC_RATE_LIMIT_SCALE: String(SCALE) } });
});

afterAll(killStartedServers);

describe('rate limits under every spelling of a path', () => {
  it('throttles anonymous bursts on a public route, unmatched paths and bad tokens', async () => {
    const problems: string[] = [];
    const anonymous = (target: string, address: string, headers: Array<[string, string]> = []): RawRequest => ({
      method: 'GET',
      target,
      headers: [['X-Forwarded-For', address], ...headers],
    });
    for (const [label, target] of spellingsOf('/api/v1/posts', '?limit=1', server.port)) {
      const address = freshAddress();
      problems.push(
        ...burstProblems(
          `anonymous GET ${label} (${target})`,
          await burst(ANONYMOUS_PER_MINUTE + 3, () => anonymous(target, address)),
          ANONYMOUS_PER_MINUTE,
        ),
      );
    }
    // A path that is not valid percent-encoding (`/%ff`) never reaches routing or a hook: the
    // router answers 400 at once and nothing runs, so it is deliberately not counted (README).
    for (const target of ['/api/v1/no-such-route', '/no-such-route', '/api/v2/posts', '/api/v1/posts/../../x']) {
      const address = freshAddress();
      problems.push(
        ...burstProblems(
          `anonymous unmatched ${target}`,
          await burst(ANONYMOUS_PER_MINUTE + 3, () => anonymous(target, address)),
          ANONYMOUS_PER_MINUTE,
        ),
      );
    }
    for (const [label, target] of spellingsOf('/api/v1/recommendations', '?user_id=u1', server.port)) {
      const address = freshAddress();
      const bad: Array<[string, string]> = [['Authorization', 'Bearer rsv_bogus-token']];
      problems.push(
        ...burstProblems(
          `bad token ${label} (${target})`,
          await burst(ANONYMOUS_PER_MINUTE + 3, () => anonymous(target, address, bad)),
          ANONYMOUS_PER_MINUTE,
        ),
      );
    }
    expect(problems).toEqual([]);
  }, 240_000);

  it('throttles authenticated bursts on recommendations under every spelling', async () => {
    const spellings = spellingsOf('/api/v1/recommendations', '?user_id=u1&limit=2', server.port);
    const tokens: string[] = [];
    for (let i = 0; i < spellings.length; i += 4) {
      tokens.push(...(await Promise.all(spellings.slice(i, i + 4).map(() => mintToken(server.dbPath, { scopes: 'read,write,admin' })))));
    }
    const problems: string[] = [];
    for (const [i, [label, target]] of spellings.entries()) {
      const authorization: [string, string] = ['Authorization', `Bearer ${tokens[i]}`];
      const outcomes = await burst(AUTHENTICATED_PER_MINUTE + 2, () => ({ method: 'GET', target, headers: [authorization] }));
      // Routed to recommendations: its group's limit; anything else: the caller's tier limit.
      const routed = outcomes.some((o) => o.kind === 'response' && o.response.status === 200);
      problems.push(
        ...burstProblems(`token GET ${label} (${target})`, outcomes, routed ? RECOMMENDATIONS_PER_MINUTE : AUTHENTICATED_PER_MINUTE),
      );
    }
    expect(problems).toEqual([]);
  }, 240_000);

  it('refuses a caller whose budget is spent under every spelling', async () => {
    const problems: string[] = [];
    const address = freshAddress();
    await awayFromMinuteEdge();
    for (let i = 0; i < ANONYMOUS_PER_MINUTE; i++)
      await sendRaw(server.port, { method: 'GET', target: '/api/v1/posts?limit=1', headers: [['X-Forwarded-For', address]] });
    for (const [label, target] of spellingsOf('/api/v1/posts', '?limit=1', server.port)) {
      const outcome = await sendRaw(server.port, { method: 'GET', target, headers: [['X-Forwarded-For', address]] });
      if (statusOf(outcome) !== '429')
        problems.push(`anonymous ${label} (${target}) after the budget: ${describeOutcome(outcome).slice(0, 160)}`);
      else if (outcome.kind === 'response' && !Number.isInteger((jsonBody(outcome.response) as { retry_after?: unknown })?.retry_after))
        problems.push(`${label}: 429 without retry_after`);
    }
    const token = await mintToken(server.dbPath, { scopes: 'read,write,admin' });
    const authorization: [string, string] = ['Authorization', `Bearer ${token}`];
    await awayFromMinuteEdge();
    for (let i = 0; i < RECOMMENDATIONS_PER_MINUTE; i++)
      await sendRaw(server.port, { method: 'GET', target: '/api/v1/recommendations?user_id=u1', headers: [authorization] });
    for (const [label, target] of spellingsOf('/api/v1/recommendations', '?user_id=u1', server.port)) {
      const outcome = await sendRaw(server.port, { method: 'GET', target, headers: [authorization] });
      // Past the recommendations budget: a spelling that reaches recommendations must be refused.
      if (outcome.kind === 'response' && outcome.response.status === 200)
        problems.push(`token ${label} (${target}) after the recommendations budget: 200`);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});

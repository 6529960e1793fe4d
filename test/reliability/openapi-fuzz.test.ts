/**
 * Fuzzing every route of the served OpenAPI document with fast-check, from a fixed
 * seed (printed; replay with RECSVC_RELIABILITY_SEED): valid, near-valid and hostile
 * requests, sent as raw HTTP to a live `recsvc serve`, in one interleaved sequence so
 * that what one request stores, later ones read. Every response must be below 500,
 * carry the spec's headers, and for errors the spec's body; a rejected request must
 * leave every table's contents unchanged; afterwards every user's reads still work.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChecksum, changedTables, type DatabaseChecksum } from './support/db-checksum.js';
import { hostileCase, hostileVariants } from './support/fuzz-hostile.js';
import { nearValidDraft } from './support/fuzz-near-valid.js';
import { renderDraft, validDraft, type FuzzCase, type FuzzTokens } from './support/fuzz-request.js';
import { fetchOpenApi, listOperations, type Operation } from './support/openapi-operations.js';
import { describeOutcome, sendRaw, type RawRequest } from './support/raw-http.js';
import { killStartedServers, mintToken, startRecsvc, type RecsvcServer } from './support/recsvc-server.js';
import { experimentBody, seedWorld, type World } from './support/seed-world.js';
import type { NameHints } from './support/schema-arbitrary.js';
import { specProblems } from './support/spec-conformance.js';
import { LONG, SEED, byMode, seededRandom, sleep } from './support/suite-settings.js';
import { makeStatus } from '../helpers/mastodon-fixtures.js';

/** Cases per operation and kind. */
const RUNS = { valid: byMode(8, 60), 'near-valid': byMode(16, 150), hostile: byMode(16, 150) };
const USERS = ['fz1', 'fz2', 'fz3'];

let server: RecsvcServer;
let world: World;
let tokens: FuzzTokens;
let operations: Operation[];

beforeAll(async () => {
  // No background writes between a request and the check that it wrote nothing: the agents'
  // interval at its longest, the ranking fit's trigger (when signals go quiet) off, and the
  // agents that first run seconds after a start waited for.
  server = await startRecsvc({ args: ['--rate-limit', 'off'], env: { RECSVC_AGENT_INTERVAL: '35791', RECSVC_RANKING_FIT: 'off' } });
  const admin = await mintToken(server.dbPath);
  await waitForFirstRuns(server.baseUrl, admin, EARLY_AGENTS);
  const user = await mintToken(server.dbPath, { scopes: 'read,write', user: USERS[0]! });
  tokens = { admin, user, userId: USERS[0]! };
  world = await seedWorld(server.baseUrl, admin, USERS);
  operations = listOperations(await fetchOpenApi(server.baseUrl));
});

afterAll(killStartedServers);

/** Agents whose first run comes seconds after a start (initialDelaySeconds), whatever the interval. */
const EARLY_AGENTS = ['ranking_default', 'ranking_fit', 'cache_warmer', 'item_model', 'item_model_load'];

/** Waits until each named agent has run once (its row in agent_runs written), at most a minute. */
async function waitForFirstRuns(baseUrl: string, token: string, names: readonly string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await fetch(`${baseUrl}/api/v1/agents/status`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { agents: { name: string; last_execution: string | null }[] };
    const pending = names.filter((name) => body.agents.find((agent) => agent.name === name)?.last_execution == null);
    if (pending.length === 0) return;
    if (Date.now() > deadline) throw new Error(`agents not run a minute after the start: ${pending.join(', ')}`);
    await sleep(250);
  }
}

/** Values that point at rows that exist, by parameter or property name (and, for `id`, by route). */
function hintsFor(operation: Operation): NameHints {
  const posts = fc.constantFrom(...world.postIds);
  const interactionIds = Object.values(world.interactionIds).flat();
  const id = operation.path.includes('/experiments/')
    ? fc.constantFrom(...world.experimentIds)
    : operation.path.startsWith('/api/v1/interactions')
      ? fc.constantFrom(...interactionIds)
      : posts;
  return {
    user_id: fc.constantFrom(...USERS),
    post_id: posts,
    id,
    max_id: posts,
    since_id: posts,
    min_id: posts,
    exclude_ids: fc.subarray(world.postIds, { maxLength: 3 }).map((ids) => ids.join(',')),
    account_id: fc.constantFrom('acc-author0', 'acc-author1'),
    tag: fc.constantFrom('cats', 't1'),
    session_id: fc.constantFrom('s1', 's2'),
  };
}

/** Whole bodies that pass the server's cross-field rules (weights summing to 1, ...), for some routes. */
function bodyHint(operation: Operation): fc.Arbitrary<unknown> | undefined {
  if (operation.label === 'POST /api/v1/analytics/experiments')
    return fc.string({ minLength: 1, maxLength: 20 }).map((name) => experimentBody(name));
  const status = fc.integer({ min: 1_000, max: 9_999 }).map((n) => makeStatus({ n, author: `fz-author${n % 3}`, tags: ['fuzz'] }));
  if (operation.label === 'POST /api/v1/posts') return status;
  if (operation.label === 'POST /api/v1/posts/batch')
    return fc.array(status, { minLength: 1, maxLength: 3 }).map((statuses) => ({ statuses }));
  return undefined;
}

function casesFor(operation: Operation, seed: number): FuzzCase[] {
  const hints = hintsFor(operation);
  const schemaValid = validDraft(operation, hints, tokens);
  const hinted = bodyHint(operation);
  const valid = hinted
    ? fc.oneof(
        schemaValid,
        fc.tuple(schemaValid, hinted).map(([draft, json]) => ({ ...draft, body: { json } })),
      )
    : schemaValid;
  const cases: FuzzCase[] = [];
  for (const draft of fc.sample(valid, { seed, numRuns: RUNS.valid })) {
    cases.push({ kind: 'valid', what: 'valid', request: renderDraft(operation, draft) });
  }
  for (const { draft, what } of fc.sample(nearValidDraft(operation, valid), { seed: seed + 1, numRuns: RUNS['near-valid'] })) {
    cases.push({ kind: 'near-valid', what, request: renderDraft(operation, draft) });
  }
  const hostiles = fc.sample(hostileCase(operation, valid, server.port), { seed: seed + 2, numRuns: RUNS.hostile });
  // And, on one valid draft, every variant known to have broken the service once (all of them under the long flag).
  const [base] = fc.sample(valid, { seed: seed + 3, numRuns: 1 });
  hostiles.push(...hostileVariants(operation, base!, server.port).filter((v) => LONG || EDGES.test(v.what)));
  for (const hostile of hostiles) {
    const request = (): RawRequest | Buffer => {
      const built = hostile.make();
      return built.raw ?? renderDraft(operation, built.draft!);
    };
    cases.push({ kind: 'hostile', what: hostile.what, request, ...(hostile.pipelined ? { pipelined: true } : {}) });
  }
  return cases;
}

/** Hostile variants run on every operation by default: the holes of issue 9 and their neighbours. */
const EDGES =
  /nested (4111|4113|20000) deep|1\.2 MB|__proto__|NUL|a 20 KB target|a 40 KB header|absolute-form|Expect|no Host|well-formed chunked/;

/** One line naming a request, for failure examples. */
function describeRequest(request: RawRequest | Buffer): string {
  if (Buffer.isBuffer(request)) return JSON.stringify(request.toString('latin1').slice(0, 160));
  const body = request.body === undefined ? '' : ` ${String(request.body).slice(0, 160)}`;
  return `${request.method} ${request.target.slice(0, 160)}${body}`;
}

function shuffled<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Table checksums once two readings 15 ms apart agree (at most ~0.5 s). */
async function settledTables(checksum: DatabaseChecksum): Promise<Record<string, string>> {
  let previous = checksum.tables();
  for (let i = 0; i < 30; i++) {
    await sleep(15);
    const current = checksum.tables();
    if (changedTables(previous, current).length === 0) return current;
    previous = current;
  }
  return previous;
}

interface Failure {
  count: number;
  example: string;
}

describe('fuzzing every route of the OpenAPI document', () => {
  it(
    'answers valid, near-valid and hostile requests below 500, in the spec, and rejects without writing',
    async () => {
      console.log(`OpenAPI fuzz: seed ${SEED}, ${operations.length} operations, per operation ${JSON.stringify(RUNS)}`);
      const all = operations.flatMap((operation, i) => casesFor(operation, SEED + i * 7).map((c) => ({ operation, ...c })));
      const sequence = shuffled(all, seededRandom(SEED));
      const checksum: DatabaseChecksum = openChecksum(server.dbPath);
      const failures = new Map<string, Failure>();
      const fail = (problem: string, example: string): void => {
        const entry = failures.get(problem) ?? { count: 0, example };
        entry.count += 1;
        failures.set(problem, entry);
      };
      const tally = new Map<string, Map<string, number>>();
      let before = checksum.tables();
      try {
        for (const { operation, kind, what, request: pending, pipelined } of sequence) {
          const request = typeof pending === 'function' ? pending() : pending;
          const method = Buffer.isBuffer(request) ? operation.method : request.method;
          const outcome = await sendRaw(server.port, request, { timeoutMs: 15_000, method });
          const example = `${kind} ${operation.label}: ${what} [${describeRequest(request)}] -> ${describeOutcome(outcome).slice(0, 240)}`;
          const status = outcome.kind === 'response' ? String(outcome.response.status) : outcome.kind;
          const byStatus = tally.get(kind) ?? new Map<string, number>();
          byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
          tally.set(kind, byStatus);
          if (outcome.kind !== 'response') {
            fail(`no response (${outcome.kind}) to ${what}`, example);
          } else {
            const response = outcome.response;
            const problems = method === 'HEAD' ? specProblems(response).filter((p) => !p.startsWith('error ')) : specProblems(response);
            if (response.status === 503) problems.unshift('server error 503');
            // One entry per distinct set of problems, so a root cause shows once with its count.
            if (problems.length > 0) fail(`${response.status}: ${problems.join('; ')}`, example);
          }
          const rejected = outcome.kind !== 'response' || outcome.response.status >= 400;
          // An accepted request may still record its timing just after answering: let it land.
          const after = rejected ? checksum.tables() : await settledTables(checksum);
          if (rejected && !pipelined) {
            const changed = changedTables(before, after);
            if (changed.length > 0) fail(`a rejected request changed ${changed.join(', ')}`, example);
          }
          before = after;
        }

        // Nothing accepted above may make a later read fail.
        const admin = { authorization: `Bearer ${tokens.admin}` };
        const reads = [
          ...USERS.flatMap((u) => [
            `/api/v1/interactions?user_id=${u}`,
            `/api/v1/recommendations?user_id=${u}`,
            `/api/v1/recommendations/preferences?user_id=${u}`,
          ]),
          '/api/v1/posts',
          '/api/v1/posts/trending',
          '/api/v1/analytics/experiments',
          ...world.experimentIds.flatMap((id) =>
            ['status', 'metrics', 'analysis', 'gates', 'export'].map((part) => `/api/v1/analytics/experiments/${id}/${part}`),
          ),
        ];
        for (const path of reads) {
          const response = await fetch(`${server.baseUrl}${path}`, { headers: admin });
          if (response.status >= 500)
            fail(`a read after the fuzz failed`, `GET ${path} -> ${response.status} ${(await response.text()).slice(0, 200)}`);
          else await response.arrayBuffer();
        }
      } finally {
        checksum.close();
      }

      const logged = server
        .output()
        .split('\n')
        .filter((line) => line.includes('"level":50'));
      if (logged.length > 0)
        console.log(
          `server errors logged (last 5 of ${logged.length}):\n${logged
            .slice(-5)
            .map((l) => l.slice(0, 800))
            .join('\n')}`,
        );
      const table = [...tally].map(
        ([kind, statuses]) =>
          `${kind.padEnd(10)} ${[...statuses]
            .sort()
            .map(([s, n]) => `${s}:${n}`)
            .join(' ')}`,
      );
      console.log(`OpenAPI fuzz: ${sequence.length} requests (seed ${SEED})\n${table.join('\n')}`);
      const covered = new Set(sequence.map((c) => c.operation.label));
      expect(operations.filter((op) => !covered.has(op.label)).map((op) => op.label)).toEqual([]);
      expect(Object.fromEntries([...failures].sort((a, b) => b[1].count - a[1].count)), `seed ${SEED}`).toEqual({});
    },
    byMode(300_000, 1_800_000),
  );
});

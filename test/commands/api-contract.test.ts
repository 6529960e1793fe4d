/**
 * The CLI reads only what the API contract promises: every success body is checked
 * against the TypeBox schema the server serialises it with, and a body that breaks it
 * is exit 3 with one line naming the field (not a crash, not a silently wrong table).
 * Error bodies go through the one error funnel (commands/run.ts) as one line, with the
 * hint before the request id. The "server" here is a small HTTP server on 127.0.0.1
 * answering canned bodies, run against the built binary as a child process.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const META = { request_id: 'req-1', timestamp: '2025-01-01T00:00:00.000Z' };
const SRM = { chi_square: 0.1, p_value: 0.75, mismatch: false };
const WEIGHTS = { author_preference: 0.35, content_engagement: 0.25, recency: 0.25, semantic_similarity: 0.15 };

function variant(name: string, allocation: unknown, control: boolean) {
  return {
    name,
    description: '',
    traffic_allocation: allocation,
    algorithm_config: { weights: WEIGHTS },
    is_control: control,
    blocked: false,
    blocked_reason: null,
  };
}

function experiment(allocation: unknown) {
  return {
    id: 1,
    name: 'canned',
    description: '',
    status: 'ACTIVE',
    traffic_percentage: 100,
    minimum_sample_size: 10,
    confidence_level: 0.95,
    primary_metric: 'click_through_rate',
    analysis_method: 'fixed',
    gates: { max_response_time_p95: 200, min_click_through_rate: 0.05, max_error_rate: 0.01, min_user_satisfaction: 0.6 },
    variants: [variant('control', allocation, true), variant('treatment', 50, false)],
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    started_at: '2025-01-01T00:00:00.000Z',
    ended_at: null,
  };
}

const REFUSED = { error: 'Authentication required', message: 'A valid bearer token is required', request_id: 'req-401', status_code: 401 };

/** Path → [status, body] the canned server answers with. */
const ANSWERS: Record<string, [number, unknown]> = {
  // users_assigned as a string: the old CLI printed it as if it were a count and exited 0.
  '/api/v1/analytics/experiments/1/status': [
    200,
    {
      data: {
        id: 1,
        name: 'canned',
        status: 'ACTIVE',
        users_assigned: 3,
        variants: [{ name: 'control', users_assigned: 'three', share: 1, traffic_allocation: 50, blocked: false }],
        srm: SRM,
      },
      meta: META,
    },
  ],
  // A traffic allocation as a string: the old CLI bucketed with it and exited 0.
  '/api/v1/analytics/experiments/1': [200, { data: experiment('50'), meta: META }],
  // A gates report without minimum_sample_size: the old CLI judged every gate against `undefined`.
  '/api/v1/analytics/experiments/1/gates': [
    200,
    { data: { experiment_id: 1, verdict: 'pass', srm: SRM, thresholds: experiment(50).gates, variants: [] }, meta: META },
  ],
  // A refused token is refused on every path: status first reads the experiment (its type), then its status.
  '/api/v1/analytics/experiments/2': [401, REFUSED],
  '/api/v1/analytics/experiments/2/status': [401, REFUSED],
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const [status, body] = ANSWERS[(request.url ?? '').split('?')[0] ?? ''] ?? [
      404,
      { error: 'Resource not found', message: 'no', request_id: 'req-404', status_code: 404 },
    ];
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const cli = (args: string[]) => runCli([...args, '--server', base, '--token', 't']);

describe('a success body that breaks the API schema', () => {
  it.each([
    [['experiment', 'status', '1'], 'GET', '/1/status', 'variants[0].users_assigned'],
    [['bucket', 'alice', '--experiment', '1'], 'GET', '/1', 'variants[0].traffic_allocation'],
    [['gates', 'check', '1'], 'GET', '/1/gates', 'minimum_sample_size'],
  ])('%j exits 3 with one line naming the field', async (args, method, path, field) => {
    const result = await cli(args);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toBe('');
    const line = `recsvc: ${method} ${base}/api/v1/analytics/experiments${path} answered data that does not match the API: ${field}: `;
    expect(result.stderr.startsWith(line), result.stderr).toBe(true);
    expect(result.stderr).toMatch(/\(is http:\/\/127\.0\.0\.1:\d+ a recsvc server of this version\?\)\n$/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('the one error funnel', () => {
  it('prints an error body as message, hint, then request id, on one line (exit 3)', async () => {
    const result = await cli(['experiment', 'status', '2']);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      'recsvc: server: 401 Authentication required: A valid bearer token is required — pass an admin token with --token or RECSVC_TOKEN (request_id req-401)\n',
    );
  });
});

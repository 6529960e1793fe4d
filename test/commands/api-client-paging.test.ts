/**
 * The CLI's API client reads a paged list whole: it follows the server's `Link` rel="next"
 * (the experiments list answers at most 100 per page, so `experiment list` would otherwise
 * stop at the first hundred).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExperimentSchema } from '../../src/experiments/experiment-response.schema.js';
import { ApiClient, nextPagePath } from '../../commands/support/api-client.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { experimentBody } from '../server/experiments/experiment-bodies.js';

let t: TestApp;
let client: ApiClient;
const created: number[] = [];

beforeAll(async () => {
  // The server writes its links on a public URL unlike the address the client uses.
  t = await createTestApp({ publicUrl: 'https://recs.example.org/prefix' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const admin = await t.adminHeaders();
  for (let i = 0; i < 5; i++) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/analytics/experiments',
      headers: admin,
      payload: experimentBody({ name: `e${i}` }),
    });
    expect(res.statusCode).toBe(201);
    created.push(res.json<{ data: { id: number } }>().data.id);
  }
  client = new ApiClient({ server: `http://127.0.0.1:${port}`, token: admin.authorization!.slice('Bearer '.length) });
});
afterAll(() => t.close());

describe('ApiClient.getAll', () => {
  it('follows rel="next" page by page and returns every item once, in order', async () => {
    const all = await client.getAll('/api/v1/analytics/experiments?limit=2', ExperimentSchema);
    expect(all.map((e) => e.id)).toEqual(created);
  });

  it('reads the next page from its own server, from /api/ on, whatever base the link is written on', () => {
    expect(nextPagePath('<https://recs.example.org/prefix/api/v1/analytics/experiments?limit=2&min_id=3>; rel="next"')).toBe(
      '/api/v1/analytics/experiments?limit=2&min_id=3',
    );
    expect(nextPagePath('<https://x/api/v1/posts?min_id=9>; rel="prev"')).toBeUndefined();
    expect(nextPagePath(undefined)).toBeUndefined();
  });
});

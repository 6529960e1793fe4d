/**
 * `recsvc import` waits and sends a batch again when the server asks it to (429 rate limited,
 * 503 shedding load), as long as the server says: a real small HTTP server on 127.0.0.1 that
 * answers the first request of each batch with 429 and `retry_after: 1`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let server: Server;
let url: string;
const received: number[] = [];

beforeAll(async () => {
  let refused = false;
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const { interactions } = JSON.parse(text) as { interactions: Array<Record<string, string>> };
      res.setHeader('content-type', 'application/json');
      if (!refused) {
        refused = true;
        res.statusCode = 429;
        res.end(JSON.stringify({ error: 'Rate limit exceeded', message: 'slow down', request_id: 'r1', status_code: 429, retry_after: 1 }));
        return;
      }
      refused = false;
      received.push(interactions.length);
      const at = new Date().toISOString();
      const results = interactions.map((i, n) => ({
        status: 'created',
        interaction: { id: String(n), user_id: i.user_id, post_id: i.post_id, action_type: i.action_type, context: null, created_at: at },
      }));
      res.statusCode = 201;
      res.end(
        JSON.stringify({
          data: { created: results.length, existing: 0, not_stored: 0, results },
          meta: { request_id: 'r2', timestamp: at },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('sends a batch again after the wait the server asked for, and stores each batch once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'recsvc-import-retry-'));
  const path = join(dir, 'i.csv');
  writeFileSync(path, 'user_id,post_id,action_type\nu1,p1,favorite\nu1,p2,favorite\nu2,p1,reblog\n');
  const res = await runCli(['import', 'interactions', path, '--batch-size', '2', '--json'], {
    env: { RECSVC_SERVER: url, RECSVC_TOKEN: 't' },
  });
  expect(res.code, res.stderr).toBe(0);
  expect(received).toEqual([2, 1]);
  expect(JSON.parse(res.stdout)).toMatchObject({ sent: 3, batches: 2, created: 3, last_line: 4 });
});

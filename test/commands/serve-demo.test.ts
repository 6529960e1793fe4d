import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startServe, tempDir } from '../helpers/cli.js';

describe('recsvc serve --demo', () => {
  it('seeds before the app loads its candidate pool, so the demo users get recommendations at once', async () => {
    const db = join(tempDir(), 'demo.db');
    const server = await startServe(['--db', db, '--demo', '--log-level', 'info']);
    try {
      const { token } = JSON.parse((await runCli(['token', 'create', '--scopes', 'read', '--user', 'user1', '--db', db, '--json'])).stdout);
      const response = await fetch(`${server.baseUrl}/api/v1/recommendations?user_id=user1&limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      const items = (await response.json()) as Array<{ is_recommendation: boolean; recommendation_metadata: { reason_code: string } }>;
      expect(items).toHaveLength(10);
      expect(items.every((item) => item.is_recommendation)).toBe(true);
      const trending = (await (await fetch(`${server.baseUrl}/api/v1/posts/trending?limit=5`)).json()) as unknown[];
      expect(trending).toHaveLength(5);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.logs()).toMatch(/demo data: \d+ posts by \d+ authors, \d+ interactions by \d+ users/);
  });
});

describe('recsvc serve --demo, three processes starting together on one new SQLite file', () => {
  it('migrates and seeds once: every process starts, one seeds, the others find the posts', async () => {
    const db = join(tempDir(), 'together.db');
    const starts = await Promise.allSettled([0, 1, 2].map(() => startServe(['--db', db, '--demo', '--log-level', 'info'], {}, 60_000)));
    const servers = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    try {
      expect(starts.map((start) => (start.status === 'rejected' ? String(start.reason) : 'started'))).toEqual([
        'started',
        'started',
        'started',
      ]);
      const logs = servers.map((server) => server.logs());
      expect(logs.filter((text) => /demo data: \d+ posts by/.test(text))).toHaveLength(1);
      expect(logs.filter((text) => text.includes('the database already has posts; nothing seeded'))).toHaveLength(2);
      for (const server of servers) {
        const trending = (await (await fetch(`${server.baseUrl}/api/v1/posts/trending?limit=5`)).json()) as unknown[];
        expect(trending).toHaveLength(5);
      }
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  }, 90_000);
});

import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SYNTHETIC_TOPICS } from '../../src/evaluation/synthetic-content.js';
import { DEFAULT_DEMO_SIZES, generateDemoData } from '../../server/demo/demo-generator.js';
import { openSqlite } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { runCli, startServe, tempDir } from '../helpers/cli.js';

interface Item {
  is_recommendation: boolean;
  account: { username: string };
  tags: Array<{ name: string }>;
  recommendation_metadata: { reason_code: string; reason_string: string };
}

/** What the demo planted for a user (the data set is the same whatever the anchor). */
function planted(user: string): { favourites: readonly string[]; tags: Set<string> } {
  const { truth } = generateDemoData(DEFAULT_DEMO_SIZES, Date.now());
  const topics = truth.userTopics.get(user)!;
  return {
    favourites: truth.favouriteAuthors.get(user)!,
    tags: new Set(SYNTHETIC_TOPICS.filter((t) => topics.includes(t.name)).flatMap((t) => t.tags)),
  };
}

describe('recsvc serve --demo', () => {
  it('seeds before the app loads its candidate pool, so the demo users get recommendations at once', async () => {
    const db = join(tempDir(), 'demo.db');
    const server = await startServe(['--db', db, '--demo', '--log-level', 'info'], {}, 90_000);
    try {
      const { token } = JSON.parse((await runCli(['token', 'create', '--scopes', 'read', '--user', 'user1', '--db', db, '--json'])).stdout);
      const response = await fetch(`${server.baseUrl}/api/v1/recommendations?user_id=user1&limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      const items = (await response.json()) as Item[];
      expect(items).toHaveLength(10);
      expect(items.every((item) => item.is_recommendation)).toBe(true);
      const trending = (await (await fetch(`${server.baseUrl}/api/v1/posts/trending?limit=5`)).json()) as unknown[];
      expect(trending).toHaveLength(5);

      // The demo's starting point (collaborative 1) applies when the ranking_default agent first runs, a second after the start.
      const applied = async (): Promise<boolean> => {
        const { agents } = (await (await fetch(`${server.baseUrl}/api/v1/agents/status`)).json()) as {
          agents: Array<{ name: string; last_summary: string | null }>;
        };
        return agents.some((a) => a.name === 'ranking_default' && (a.last_summary ?? '').startsWith('collaborative 1,'));
      };
      for (let wait = 0; wait < 120 && !(await applied()); wait++) await new Promise((resolve) => setTimeout(resolve, 250));
      const twenty = (await (
        await fetch(`${server.baseUrl}/api/v1/recommendations?user_id=user1&limit=20`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as Item[];
      const { favourites, tags } = planted('user1');
      const reasons = (code: string): Item[] => twenty.filter((i) => i.recommendation_metadata.reason_code === code);
      expect(reasons('COLLABORATIVE').map((i) => i.recommendation_metadata.reason_string)).toContainEqual(
        expect.stringMatching(/^Liked by people who liked @author\d+'s post about #\w+$/),
      );
      // user1's planted favourite authors, as the author feature found them.
      expect(reasons('AUTHOR_INTERACTION').filter((i) => favourites.includes(i.account.username)).length).toBeGreaterThan(0);
      expect(reasons('TRENDING_TAG').length).toBeGreaterThan(0);
      // Most of the list is about user1's planted topics (three of sixteen).
      expect(twenty.filter((i) => i.tags.some((t) => tags.has(t.name))).length).toBeGreaterThanOrEqual(12);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.logs()).toMatch(
      /demo data: \d+ posts by \d+ authors, \d+ interactions by \d+ users.*; default ranking from collaborative 1,/,
    );
  }, 150_000);
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

describe('recsvc serve --demo beside a process holding the write lock beyond the busy timeout', () => {
  it('waits for the lock (a seeding process on a loaded machine holds it 10 s and more) instead of failing its start', async () => {
    const db = join(tempDir(), 'held.db');
    const migrated = openSqlite(db);
    await migrateToLatest(migrated.db);
    await migrated.close();
    // Another process's long write: the write lock held 15 s, well beyond SQLite's 5 s busy timeout.
    const holder = new SQLite(db);
    holder.exec('BEGIN IMMEDIATE');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        holder.exec('ROLLBACK');
        holder.close();
        resolve();
      }, 15_000),
    );
    const started = Date.now();
    const server = await startServe(['--db', db, '--demo', '--log-level', 'info'], {}, 90_000);
    try {
      await released;
      expect(Date.now() - started).toBeGreaterThanOrEqual(15_000);
      expect(server.logs()).toMatch(/another process holds the database \(migrating or seeding it\): waiting/);
      expect(server.logs()).toMatch(/demo data: \d+ posts by/);
      expect(await (await fetch(`${server.baseUrl}/health`)).json()).toMatchObject({ status: 'healthy' });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 120_000);
});

/**
 * Durability under load: every interaction the server acknowledged survives `kill -9`,
 * the database passes SQLite's integrity check, and each post's counters agree with the
 * interactions stored (they are written in the same transaction). Exercises the group
 * commit, the background WAL checkpointer and memory-mapped reads together.
 */
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { makeStatus, postId } from '../helpers/mastodon-fixtures.js';
import { runCli, startServe, tempDir } from '../helpers/cli.js';

const POSTS = 40;
const ACTIONS = ['favorite', 'bookmark', 'reblog'] as const;

describe('recsvc serve killed with SIGKILL under write load', () => {
  it('keeps every acknowledged interaction and consistent counters', async () => {
    const db = join(tempDir(), 'crash.db');
    const created = await runCli(['token', 'create', '--scopes', 'read,write,admin', '--db', db, '--json']);
    const { token } = JSON.parse(created.stdout) as { token: string };
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const server = await startServe(['--db', db, '--rate-limit', 'off', '--log-level', 'info']);

    const statuses = Array.from({ length: POSTS }, (_, i) => makeStatus({ n: i + 1, author: `a${i % 7}`, tags: ['cats', `t${i % 5}`] }));
    const batch = await fetch(`${server.baseUrl}/api/v1/posts/batch`, { method: 'POST', headers, body: JSON.stringify({ statuses }) });
    expect(batch.status).toBe(201);

    const acknowledged = new Set<string>();
    let stop = false;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const body = {
          user_id: `u${(w * 7 + i) % 60}`,
          post_id: postId(1 + ((w * 13 + i * 7) % POSTS)),
          action_type: ACTIONS[(w + i) % 3],
        };
        try {
          const response = await fetch(`${server.baseUrl}/api/v1/interactions`, { method: 'POST', headers, body: JSON.stringify(body) });
          if (response.status === 201 || response.status === 200) acknowledged.add(`${body.user_id}|${body.post_id}|${body.action_type}`);
        } catch {
          return; // the server is gone
        }
      }
    };
    const writers = Array.from({ length: 20 }, (_, w) => writer(w));
    await new Promise((r) => setTimeout(r, 1500));
    expect(await server.stop('SIGKILL')).toBeNull();
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.size).toBeGreaterThan(100);

    const sqlite = new SQLite(db);
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    const stored = new Set(
      (
        sqlite.prepare('SELECT user_id, post_id, action_type FROM interactions').all() as {
          user_id: string;
          post_id: string;
          action_type: string;
        }[]
      ).map((r) => `${r.user_id}|${r.post_id}|${r.action_type}`),
    );
    for (const key of acknowledged) expect(stored.has(key), key).toBe(true);
    const mismatched = sqlite
      .prepare(
        `SELECT p.id FROM posts p WHERE
           p.favourites_count != (SELECT COUNT(*) FROM interactions i WHERE i.post_id = p.id AND i.action_type = 'favorite')
        OR p.reblogs_count != (SELECT COUNT(*) FROM interactions i WHERE i.post_id = p.id AND i.action_type = 'reblog')
        OR p.bookmarks_count != (SELECT COUNT(*) FROM interactions i WHERE i.post_id = p.id AND i.action_type = 'bookmark')`,
      )
      .all();
    expect(mismatched).toEqual([]);
    const usersWithout = sqlite
      .prepare('SELECT DISTINCT user_id FROM interactions WHERE user_id NOT IN (SELECT user_id FROM user_affinities)')
      .all();
    expect(usersWithout).toEqual([]);
    sqlite.close();

    // And it starts again on the same file.
    const again = await startServe(['--db', db, '--log-level', 'info']);
    const counts = await fetch(`${again.baseUrl}/api/v1/interactions/counts/${postId(1)}`);
    expect(counts.status).toBe(200);
    expect(await again.stop()).toBe(0);
  }, 60_000);
});

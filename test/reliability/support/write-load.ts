/**
 * Concurrent writers against a live server (interactions, and posts ingested one
 * by one), recording every write the server acknowledged, and the checks that an
 * acknowledged write must pass afterwards in the database file: present exactly
 * once, integrity_check ok, post counters equal to the interactions stored.
 */
import SQLite from 'better-sqlite3';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';

const ACTIONS = ['favorite', 'bookmark', 'reblog'] as const;

export interface AcknowledgedWrites {
  /** `user|post|action` of each acknowledged interaction. */
  interactions: Set<string>;
  /** Ids of acknowledged post ingests. */
  posts: Set<string>;
}

export interface WriteLoad {
  acknowledged: AcknowledgedWrites;
  /** Responses by status (errors thrown by fetch counted as `network`). */
  statuses: Map<string, number>;
  /** Stops the writers (they also stop by themselves once the server is gone) and waits for them. */
  stop(): Promise<void>;
}

export interface WriteLoadOptions {
  baseUrl: string;
  token: string;
  /** Posts that interactions point at. */
  postIds: readonly string[];
  writers: number;
  /** Distinguishes the keys of successive rounds on one database. */
  round: number;
  /** Every n-th write of a writer is a post ingest (default 5). */
  postEvery?: number;
}

/** Starts `writers` sequential write loops; every key written is new, so each acknowledged write must appear once. */
export function startWriteLoad(options: WriteLoadOptions): WriteLoad {
  const headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' };
  const acknowledged: AcknowledgedWrites = { interactions: new Set(), posts: new Set() };
  const statuses = new Map<string, number>();
  const count = (key: string): void => void statuses.set(key, (statuses.get(key) ?? 0) + 1);
  let stopped = false;
  const postEvery = options.postEvery ?? 5;
  const writer = async (w: number): Promise<void> => {
    for (let i = 0; !stopped; i++) {
      try {
        if (i % postEvery === postEvery - 1) {
          const n = 10_000_000 + options.round * 1_000_000 + w * 20_000 + i;
          const status = makeStatus({ n, author: `crash-author-${w % 5}`, tags: ['crash', `w${w % 3}`] });
          const response = await fetch(`${options.baseUrl}/api/v1/posts`, { method: 'POST', headers, body: JSON.stringify(status) });
          count(String(response.status));
          await response.arrayBuffer();
          if (response.status === 201 || response.status === 200) acknowledged.posts.add(postId(n));
        } else {
          const body = {
            user_id: `r${options.round}-w${w}-u${i}`,
            post_id: options.postIds[(w * 13 + i * 7) % options.postIds.length]!,
            action_type: ACTIONS[(w + i) % ACTIONS.length]!,
          };
          const response = await fetch(`${options.baseUrl}/api/v1/interactions`, { method: 'POST', headers, body: JSON.stringify(body) });
          count(String(response.status));
          await response.arrayBuffer();
          if (response.status === 201 || response.status === 200)
            acknowledged.interactions.add(`${body.user_id}|${body.post_id}|${body.action_type}`);
        }
      } catch {
        count('network');
        return; // the server is gone (or going): nothing more can be acknowledged
      }
    }
  };
  const running = Array.from({ length: options.writers }, (_, w) => writer(w));
  return {
    acknowledged,
    statuses,
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

export interface DurabilityReport {
  integrity: string;
  /** Acknowledged writes not found, or found more than once. */
  missing: string[];
  duplicated: string[];
  /** Posts whose counters differ from the interactions stored for them. */
  counterMismatches: string[];
  /** Users with interactions but no learned affinities (written in the same transaction). */
  usersWithoutAffinities: string[];
}

/** Checks a (closed) database file against what the server acknowledged. */
export function checkDurability(dbPath: string, acknowledged: AcknowledgedWrites): DurabilityReport {
  const db = new SQLite(dbPath);
  try {
    const integrity = String(db.pragma('integrity_check', { simple: true }));
    const interactionCount = db.prepare('SELECT COUNT(*) AS n FROM interactions WHERE user_id = ? AND post_id = ? AND action_type = ?');
    const postCount = db.prepare('SELECT COUNT(*) AS n FROM posts WHERE id = ?');
    const missing: string[] = [];
    const duplicated: string[] = [];
    for (const key of acknowledged.interactions) {
      const [user, post, action] = key.split('|');
      const { n } = interactionCount.get(user, post, action) as { n: number };
      if (n === 0) missing.push(`interaction ${key}`);
      if (n > 1) duplicated.push(`interaction ${key} x${n}`);
    }
    for (const id of acknowledged.posts) {
      const { n } = postCount.get(id) as { n: number };
      if (n === 0) missing.push(`post ${id}`);
      if (n > 1) duplicated.push(`post ${id} x${n}`);
    }
    const counterMismatches = (
      db
        .prepare(
          `SELECT p.id FROM posts p WHERE
             p.favourites_count != (SELECT COUNT(*) FROM interactions i WHERE i.post_id = p.id AND i.action_type = 'favorite')
          OR p.reblogs_count != (SELECT COUNT(*) FROM interactions i WHERE i.post_id = p.id AND i.action_type = 'reblog')
          OR p.bookmarks_count != (SELECT COUNT(*) FROM interactions i WHERE i.post_id = p.id AND i.action_type = 'bookmark')`,
        )
        .all() as { id: string }[]
    ).map((r) => r.id);
    const usersWithoutAffinities = (
      db.prepare('SELECT DISTINCT user_id FROM interactions WHERE user_id NOT IN (SELECT user_id FROM user_affinities)').all() as {
        user_id: string;
      }[]
    ).map((r) => r.user_id);
    return { integrity, missing, duplicated, counterMismatches, usersWithoutAffinities };
  } finally {
    db.close();
  }
}

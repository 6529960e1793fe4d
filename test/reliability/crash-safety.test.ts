/**
 * Crash safety: `recsvc serve` killed with SIGKILL at random moments under concurrent
 * writes, round after round on the same database file. After every crash each
 * acknowledged write (interactions and post ingests, across all rounds so far) is
 * present exactly once, integrity_check is ok and the counters agree with the rows.
 * Rounds: 10 by default, 30 under RECSVC_RELIABILITY_LONG=1.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { makeStatus, postId } from '../helpers/mastodon-fixtures.js';
import { freshDbPath, killStartedServers, mintToken, startRecsvc } from './support/recsvc-server.js';
import { SEED, byMode, seededRandom, sleep } from './support/suite-settings.js';
import { checkDurability, startWriteLoad, type AcknowledgedWrites } from './support/write-load.js';

const ROUNDS = byMode(10, 30);
const WRITERS = 16;
const POSTS = 40;

afterAll(killStartedServers);

describe('recsvc serve under SIGKILL at random moments', () => {
  it(
    `keeps every acknowledged write exactly once over ${ROUNDS} crashes`,
    async () => {
      const random = seededRandom(SEED);
      console.log(`crash safety: ${ROUNDS} rounds, seed ${SEED}`);
      const dbPath = freshDbPath('crash.db');
      const token = await mintToken(dbPath);
      const all: AcknowledgedWrites = { interactions: new Set(), posts: new Set() };
      const postIds = Array.from({ length: POSTS }, (_, i) => postId(i + 1));

      for (let round = 0; round < ROUNDS; round++) {
        const server = await startRecsvc({ dbPath, args: ['--rate-limit', 'off'] });
        if (round === 0) {
          const statuses = postIds.map((_, i) => makeStatus({ n: i + 1, author: `a${i % 7}`, tags: ['cats', `t${i % 5}`] }));
          const seeded = await fetch(`${server.baseUrl}/api/v1/posts/batch`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ statuses }),
          });
          expect(seeded.status).toBe(201);
        }
        const load = startWriteLoad({ baseUrl: server.baseUrl, token, postIds, writers: WRITERS, round });
        const killAfterMs = Math.round(150 + random() * 1350);
        await sleep(killAfterMs);
        expect(await server.stop('SIGKILL')).toBeNull();
        await load.stop();

        const acknowledged = load.acknowledged.interactions.size + load.acknowledged.posts.size;
        for (const key of load.acknowledged.interactions) all.interactions.add(key);
        for (const id of load.acknowledged.posts) all.posts.add(id);
        const report = checkDurability(dbPath, all);
        const context = `round ${round} (killed after ${killAfterMs} ms, ${acknowledged} writes acknowledged, seed ${SEED})`;
        expect(acknowledged, context).toBeGreaterThan(0);
        expect(report, context).toEqual({
          integrity: 'ok',
          missing: [],
          duplicated: [],
          counterMismatches: [],
          usersWithoutAffinities: [],
        });
      }
      console.log(`crash safety: ${all.interactions.size} interactions and ${all.posts.size} posts acknowledged, all present once`);

      // And the file still serves, and shuts down cleanly.
      const again = await startRecsvc({ dbPath });
      const counts = await fetch(`${again.baseUrl}/api/v1/interactions/counts/${postId(1)}`);
      expect(counts.status).toBe(200);
      expect(await again.stop('SIGTERM')).toBe(0);
    },
    byMode(180_000, 600_000),
  );
});

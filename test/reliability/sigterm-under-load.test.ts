/**
 * Graceful shutdown under load: SIGTERM while writers and keep-alive readers are
 * busy and one request is half-sent. The half-sent request still completes (201,
 * stored), every response written during shutdown (503s included) has the spec's
 * headers and body, no acknowledged write is lost, and the process exits 0 within
 * its grace period.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { makeStatus, postId } from '../helpers/mastodon-fixtures.js';
import { ResponseReader, describeOutcome, encodeRequest, openSocket } from './support/raw-http.js';
import { freshDbPath, killStartedServers, mintToken, startRecsvc } from './support/recsvc-server.js';
import { specProblems } from './support/spec-conformance.js';
import { sleep } from './support/suite-settings.js';
import { checkDurability, startWriteLoad } from './support/write-load.js';

const POSTS = 40;
/** The server's grace period (server/start.ts) plus room for a loaded 2-core machine. */
const EXIT_DEADLINE_MS = 20_000;

/** A keep-alive connection reading posts until the server closes it; every response is checked against the spec. */
async function keepAliveReader(port: number, problems: string[]): Promise<number> {
  const socket = await openSocket(port);
  const reader = new ResponseReader(socket, 'GET');
  let answered = 0;
  try {
    while (!reader.closed) {
      socket.write(encodeRequest(port, { method: 'GET', target: '/api/v1/posts?limit=2', close: false }), () => undefined);
      const outcome = await reader.next(EXIT_DEADLINE_MS);
      if (outcome.kind !== 'response') break;
      answered += 1;
      for (const problem of specProblems(outcome.response)) problems.push(`keep-alive reader, ${outcome.response.status}: ${problem}`);
      if (/close/i.test(outcome.response.headers.connection ?? '')) break;
    }
  } finally {
    socket.destroy();
  }
  return answered;
}

afterAll(killStartedServers);

describe('recsvc serve under SIGTERM with requests in flight', () => {
  it('finishes in-flight requests, loses no acknowledged write and exits 0', async () => {
    const dbPath = freshDbPath('sigterm.db');
    const token = await mintToken(dbPath);
    const server = await startRecsvc({ dbPath, args: ['--rate-limit', 'off'] });
    const postIds = Array.from({ length: POSTS }, (_, i) => postId(i + 1));
    const statuses = postIds.map((_, i) => makeStatus({ n: i + 1, author: `a${i % 7}`, tags: ['dogs'] }));
    const seeded = await fetch(`${server.baseUrl}/api/v1/posts/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ statuses }),
    });
    expect(seeded.status).toBe(201);

    const problems: string[] = [];
    const load = startWriteLoad({ baseUrl: server.baseUrl, token, postIds, writers: 16, round: 0 });
    const readers = Array.from({ length: 4 }, () => keepAliveReader(server.port, problems));
    while (load.acknowledged.interactions.size < 200) await sleep(20);

    // A request whose headers and half of its body have arrived when the signal comes.
    const body = JSON.stringify({ user_id: 'in-flight-user', post_id: postIds[0], action_type: 'favorite' });
    const halfSent = await openSocket(server.port);
    const halfReader = new ResponseReader(halfSent, 'POST');
    const bytes = encodeRequest(server.port, {
      method: 'POST',
      target: '/api/v1/interactions',
      headers: [
        ['Authorization', `Bearer ${token}`],
        ['Content-Type', 'application/json'],
      ],
      body,
    });
    const cut = bytes.length - Math.floor(body.length / 2);
    halfSent.write(bytes.subarray(0, cut));
    await sleep(200);

    const signalledAt = Date.now();
    const exited = server.stop('SIGTERM');
    await sleep(300);
    halfSent.write(bytes.subarray(cut));
    const inFlight = await halfReader.next(EXIT_DEADLINE_MS);
    halfSent.destroy();

    const code = await Promise.race([exited, sleep(EXIT_DEADLINE_MS).then(() => 'still running' as const)]);
    if (code === 'still running') await server.stop('SIGKILL');
    await load.stop();
    const answeredByReaders = await Promise.all(readers);
    console.log(
      `SIGTERM: exit ${String(code)} after ${Date.now() - signalledAt} ms; ${load.acknowledged.interactions.size} interactions and ` +
        `${load.acknowledged.posts.size} posts acknowledged; statuses ${JSON.stringify(Object.fromEntries(load.statuses))}; ` +
        `keep-alive readers answered ${answeredByReaders.join('/')}`,
    );

    expect(code, server.output()).toBe(0);
    expect(inFlight.kind === 'response' ? inFlight.response.status : describeOutcome(inFlight)).toBe(201);
    if (inFlight.kind === 'response') problems.push(...specProblems(inFlight.response).map((p) => `half-sent request: ${p}`));
    load.acknowledged.interactions.add(`in-flight-user|${postIds[0]}|favorite`);
    expect(problems).toEqual([]);
    expect(checkDurability(dbPath, load.acknowledged)).toEqual({
      integrity: 'ok',
      missing: [],
      duplicated: [],
      counterMismatches: [],
      usersWithoutAffinities: [],
    });
  }, 90_000);
});

/**
 * `recsvc import posts|interactions FILE` as a child process against a live server: CSV and
 * JSON Lines, the imported history weighing by its own time, one-line errors naming the file
 * and line, resume from the checkpoint after a failure at line N, tracking levels and erasure
 * on imported data, and the progress bar only on a terminal.
 *
 * Reference values: a favourite weighs 1 and halves every 14 days, so one 28 days old
 * weighs 2^(−2) = 0.25 — by hand, not by the code under test.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { hasScript, terminal } from './support/terminal.js';

const DAY = 86_400_000;
const NOW = Date.now();
const iso = (ms: number): string => new Date(ms).toISOString();

let server: ServerProcess;
let fileCount = 0;

beforeAll(async () => {
  server = await startServerProcess();
  // Ten posts p1..p10 by acc1..acc5, 60 days old, through the posts import (CSV with quoted cells).
  const lines = ['id,created_at,account_id,username,content,tags,language'];
  for (let n = 1; n <= 10; n++) {
    const author = `acc${((n - 1) % 5) + 1}`;
    lines.push(`p${n},${iso(NOW - 60 * DAY + n)},${author},user${author},"<p>Post ${n}, about ""things""\nand more</p>",rust #cats,en`);
  }
  const posts = file('posts.csv', `${lines.join('\n')}\n`);
  const res = await runCli(['import', 'posts', posts, '--json'], { env: server.env });
  expect(res.code, res.stderr).toBe(0);
  expect(JSON.parse(res.stdout)).toMatchObject({ kind: 'posts', format: 'csv', records: 10, sent: 10, batches: 1, last_line: 21 });
});
afterAll(async () => server?.stop());

function file(name: string, content: string): string {
  fileCount += 1;
  const path = join(server.dir, `${fileCount}-${name}`);
  writeFileSync(path, content);
  return path;
}

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${server.token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: await res.json() };
}

async function interactionsOf(user: string): Promise<{ post_id: string; created_at: string }[]> {
  return (await api(`/api/v1/interactions?user_id=${user}&limit=200`)).body.data;
}

async function favourites(post: string): Promise<number> {
  return (await api(`/api/v1/interactions/counts/${post}`)).body.data.favourites_count;
}

const jsonl = (items: object[]): string => items.map((item) => JSON.stringify(item)).join('\n') + '\n';
const fav = (user: string, post: string, at?: number) => ({
  user_id: user,
  post_id: post,
  action_type: 'favorite',
  ...(at === undefined ? {} : { created_at: iso(at) }),
});

describe('recsvc import', () => {
  it('imports posts from CSV as given, quoted commas, quotes and newlines included', async () => {
    const post = (await api('/api/v1/posts/p3')).body;
    expect(post.content).toBe('<p>Post 3, about "things"\nand more</p>');
    expect(post.tags.map((t: { name: string }) => t.name)).toEqual(['rust', 'cats']);
    expect(post.account).toMatchObject({ id: 'acc3', username: 'useracc3' });
  });

  it('imports interactions with their times, and an old one weighs as old', async () => {
    const path = file(
      'a.csv',
      ['user_id,post_id,action_type,created_at', `ua,p1,favorite,${iso(NOW - 28 * DAY)}`, 'ua,p2,favorite,', ''].join('\n'),
    );
    const res = await runCli(['import', 'interactions', path], { env: server.env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/imported 2 interactions .* 2 new, 0 already there, 0 not stored/);
    const stored = await interactionsOf('ua');
    expect(stored.find((i) => i.post_id === 'p1')?.created_at).toBe(iso(NOW - 28 * DAY));
    const learned = (await api('/api/v1/recommendations/preferences?user_id=ua')).body.data.learned.authors;
    const affinity = Object.fromEntries(learned.map((a: { account_id: string; affinity: number }) => [a.account_id, a.affinity]));
    expect(affinity.acc1).toBeCloseTo(0.25, 3);
    expect(affinity.acc2).toBeCloseTo(1, 3);

    // The interactions file of `recsvc eval` (its `action` column) imports as it is.
    const evalFile = file('eval.csv', `user_id,post_id,action,created_at\nua2,p3,bookmark,${iso(NOW - DAY)}\n`);
    const evalRun = await runCli(['import', 'interactions', evalFile], { env: server.env });
    expect(evalRun.code, evalRun.stderr).toBe(0);
    expect((await interactionsOf('ua2')).map((i) => i.post_id)).toEqual(['p3']);
  });

  it('stops at a refused line with one line naming the file and line, and goes on from the checkpoint once it is fixed', async () => {
    const items = [1, 2, 3, 4, 5, 6, 7].map((n) => fav('ub', `p${n}`, NOW - n * DAY));
    items[4] = fav('ub', 'p5', NOW + DAY); // line 5: a day in the future
    const path = file('b.jsonl', jsonl(items));
    const failed = await runCli(['import', 'interactions', path, '--batch-size', '2'], { env: server.env });
    expect(failed.code).toBe(2);
    const lines = failed.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^recsvc: ${path.replace(/[.]/g, '\\.')}:5: created_at: in the future`));
    expect(lines[0]).toMatch(/lines up to 4 are stored/);
    // Lines 1-4 went in two batches; the batch of lines 5-6 stored nothing.
    expect((await interactionsOf('ub')).map((i) => i.post_id).sort()).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(await favourites('p6')).toBe(0);
    expect(JSON.parse(readFileSync(`${path}.checkpoint`, 'utf8'))).toMatchObject({ kind: 'interactions', line: 4 });

    items[4] = fav('ub', 'p5', NOW - 5 * DAY);
    writeFileSync(path, jsonl(items));
    const resumed = await runCli(['import', 'interactions', path, '--batch-size', '2', '--json'], { env: server.env });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The file is newest first: the collaborative signal wants it the other way round, and it says so.
    expect(resumed.stderr).toMatch(/warning: 2 interactions .* older than the one before them/);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      records: 7,
      skipped: 4,
      sent: 3,
      created: 3,
      existing: 0,
      resumed_after_line: 4,
      last_line: 7,
    });
    const all = await interactionsOf('ub');
    expect(all).toHaveLength(7);
    expect(all.find((i) => i.post_id === 'p5')?.created_at).toBe(iso(NOW - 5 * DAY));

    // From the start again (--restart): everything is there already, nothing is counted twice.
    const p1Before = await favourites('p1');
    const again = await runCli(['import', 'interactions', path, '--restart', '--json'], { env: server.env });
    expect(JSON.parse(again.stdout)).toMatchObject({ sent: 7, created: 0, existing: 7 });
    expect(await favourites('p1')).toBe(p1Before);
  });

  it('names the file and line of a malformed line, sending nothing of its batch', async () => {
    const path = file('c.jsonl', `${JSON.stringify(fav('uc', 'p1'))}\n\n{"user_id": "uc", "post_id": \n`);
    const res = await runCli(['import', 'interactions', path], { env: server.env });
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(new RegExp(`${path.replace(/[.]/g, '\\.')}:3: not valid JSON`));
    expect(await interactionsOf('uc')).toEqual([]);
    expect(existsSync(`${path}.checkpoint`)).toBe(false);

    const csv = file('c.csv', 'user_id,post_id,action_type\nuc,p1,favorite\nuc,p2\n');
    const bad = await runCli(['import', 'interactions', csv], { env: server.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(new RegExp(`${csv.replace(/[.]/g, '\\.')}:3: `));

    const typo = file('d.csv', 'user_id,post_id,actoin_type\nuc,p1,favorite\n');
    const header = await runCli(['import', 'interactions', typo], { env: server.env });
    expect(header.code).toBe(2);
    expect(header.stderr).toMatch(/:1: unknown column "actoin_type"/);

    const missing = file('e.jsonl', jsonl([fav('uc', 'p1'), fav('uc', 'nope')]));
    const notFound = await runCli(['import', 'interactions', missing], { env: server.env });
    expect(notFound.code).toBe(2);
    expect(notFound.stderr).toMatch(/:2: post_id: No post with id nope/);
    expect(await interactionsOf('uc')).toEqual([]);
  });

  it("applies each user's tracking level to imported interactions, and erasure removes them", async () => {
    expect((await api('/api/v1/privacy?user_id=un', { method: 'PATCH', body: { tracking_level: 'none' } })).status).toBe(200);
    const path = file(
      'f.csv',
      [
        'user_id,post_id,action_type,created_at',
        `un,p8,favorite,${iso(NOW - DAY)}`,
        `ue,p8,favorite,${iso(NOW - DAY)}`,
        `ue,p9,reblog,`,
      ].join('\n'),
    );
    const res = await runCli(['import', 'interactions', path, '--json'], { env: server.env });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ created: 2, not_stored: 1 });
    expect(await interactionsOf('un')).toEqual([]);
    expect(await favourites('p8')).toBe(1);
    expect(await interactionsOf('ue')).toHaveLength(2);

    expect((await api('/api/v1/privacy/data?user_id=ue', { method: 'DELETE' })).status).toBe(200);
    expect(await interactionsOf('ue')).toEqual([]);
    const learned = (await api('/api/v1/recommendations/preferences?user_id=ue')).body.data.learned;
    expect(learned).toEqual({ authors: [], tags: [] });
  });

  it('reads gzipped files, and stdin with --format', async () => {
    const gz = join(server.dir, 'i.jsonl.gz');
    writeFileSync(gz, gzipSync(jsonl([fav('uz', 'p1'), fav('uz', 'p2')])));
    const zipped = await runCli(['import', 'interactions', gz, '--json'], { env: server.env });
    expect(zipped.code, zipped.stderr).toBe(0);
    expect(JSON.parse(zipped.stdout)).toMatchObject({ format: 'jsonl', created: 2, out_of_order: 0 });
    expect(zipped.stderr).toBe('');
    const piped = await runCli(['import', 'interactions', '-', '--format', 'csv', '--json'], {
      env: server.env,
      input: 'user_id,post_id,action_type\nuz,p3,reblog\n',
    });
    expect(piped.code, piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout)).toMatchObject({ created: 1, checkpoint: null });
    expect((await interactionsOf('uz')).map((i) => i.post_id).sort()).toEqual(['p1', 'p2', 'p3']);
    const unnamed = await runCli(['import', 'interactions', '-'], { env: server.env, input: '' });
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toMatch(/--format/);
  });

  it('draws progress only on a terminal', async () => {
    const path = file('g.jsonl', jsonl([fav('ug', 'p1'), fav('ug', 'p2')]));
    const piped = await runCli(['import', 'interactions', path], { env: server.env });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    if (!hasScript) return;
    const again = file('h.jsonl', jsonl([fav('uh', 'p1'), fav('uh', 'p2')]));
    const term = terminal(`${process.execPath} ${BIN} import interactions ${again}`, server.env);
    expect(await term.exited).toBe(0);
    expect(term.output()).toMatch(/importing interactions \[[#-]+\] \d+%/);
    expect(term.output()).toMatch(/imported 2 interactions/);
  });
});

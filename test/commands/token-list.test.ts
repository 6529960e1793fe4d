/**
 * `recsvc token list` shows live tokens by default and every token with --all, in a
 * table that fits 80 columns on a terminal; `token revoke` takes the id prefix it shows.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, tempDir } from '../helpers/cli.js';
import { hasScript, terminal } from './support/terminal.js';

interface ListedToken {
  id: string;
  label: string | null;
  state: string;
  revoked_at: string | null;
  expires_at: string | null;
}

const db = join(tempDir(), 'tokens.db');
const ids: Record<'live' | 'forever' | 'revoked' | 'expired', string> = { live: '', forever: '', revoked: '', expired: '' };

async function create(args: string[]): Promise<string> {
  const result = await runCli(['token', 'create', ...args, '--db', db, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { id: string }).id;
}

async function list(args: string[] = []): Promise<ListedToken[]> {
  const result = await runCli(['token', 'list', ...args, '--db', db, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as ListedToken[];
}

beforeAll(async () => {
  ids.live = await create([
    '--scopes',
    'read,write,admin',
    '--user',
    'a-user-with-a-rather-long-identifier',
    '--label',
    'the operator token of the night shift',
  ]);
  ids.forever = await create(['--scopes', 'read', '--tier', 'premium', '--expires', 'never', '--label', 'reader']);
  ids.revoked = await create(['--scopes', 'read', '--label', 'gone']);
  ids.expired = await create(['--scopes', 'read', '--label', 'stale']);
  expect((await runCli(['token', 'revoke', ids.revoked, '--db', db])).code).toBe(0);
  // An expiry in the past, written as the server would have stored it a day ago.
  const sqlite = new Database(db);
  sqlite.prepare('UPDATE tokens SET expires_at = ? WHERE id = ?').run(new Date(Date.now() - 60_000).toISOString(), ids.expired);
  sqlite.close();
});

describe('token list', () => {
  it('lists only live tokens by default, as JSON with their state', async () => {
    const tokens = await list();
    expect(tokens.map((t) => t.id).sort()).toEqual([ids.live, ids.forever].sort());
    expect(tokens.every((t) => t.state === 'live')).toBe(true);
  });

  it('lists every token with --all, each with its state and full data', async () => {
    const tokens = await list(['--all']);
    const state = Object.fromEntries(tokens.map((t) => [t.id, t.state]));
    expect(state).toEqual({ [ids.live]: 'live', [ids.forever]: 'live', [ids.revoked]: 'revoked', [ids.expired]: 'expired' });
    expect(tokens.find((t) => t.id === ids.revoked)?.revoked_at).toEqual(expect.any(String));
    expect(tokens.find((t) => t.id === ids.live)?.label).toBe('the operator token of the night shift');
  });

  it("prints short ids, cut labels, and dead tokens' states only with --all", async () => {
    const plain = await runCli(['token', 'list', '--db', db]);
    expect(plain.stdout).toMatch(
      new RegExp(`^${ids.live.slice(0, 8)}\\s+the operato…\\s+read,write,admin\\s+auth\\s+a-user-wi…\\s+in 2[34]h$`, 'm'),
    );
    expect(plain.stdout).toMatch(new RegExp(`^${ids.forever.slice(0, 8)}\\s+reader\\s+read\\s+premium\\s+-\\s+never$`, 'm'));
    expect(plain.stdout).not.toMatch(/gone|stale/);
    const all = await runCli(['token', 'list', '--all', '--db', db]);
    expect(all.stdout).toMatch(new RegExp(`^${ids.revoked.slice(0, 8)}\\s+gone\\s+.*\\srevoked$`, 'm'));
    expect(all.stdout).toMatch(new RegExp(`^${ids.expired.slice(0, 8)}\\s+stale\\s+.*\\sexpired$`, 'm'));
    for (const line of all.stdout.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it.skipIf(!hasScript)('keeps the boxed table within 80 columns on a terminal', async () => {
    const term = terminal(`${process.execPath} ${BIN} token list --all --db ${db}`, { NO_COLOR: undefined });
    expect(await term.exited).toBe(0);
    const lines = term
      .output()
      // eslint-disable-next-line no-control-regex -- terminal escape sequences start with ESC
      .replace(/\u001b\[[0-9;]*m/g, '')
      .split(/\r?\n/)
      .filter((line) => line !== '');
    expect(lines[0]).toMatch(/^┌─/);
    expect(lines).toHaveLength(4 * 2 + 3);
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(80);
  });

  it('teaches --all in its help', async () => {
    const help = await runCli(['token', 'list', '--help']);
    expect(help.stdout).toMatch(/--all\s/);
    expect(help.stdout).toContain('$ recsvc token list --all');
  });
});

describe('token revoke', () => {
  it('accepts the 8-character id that token list shows, and refuses shorter or unknown ones (exit 2)', async () => {
    const id = await create(['--scopes', 'read', '--label', 'to revoke']);
    const revoked = await runCli(['token', 'revoke', id.slice(0, 8), '--db', db]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe(`revoked ${id}\n`);
    expect((await list()).map((t) => t.id)).not.toContain(id);
    const short = await runCli(['token', 'revoke', id.slice(0, 7), '--db', db]);
    expect(short.code).toBe(2);
    expect(short.stderr).toBe(`recsvc: token id "${id.slice(0, 7)}" is too short: give at least 8 characters\n`);
    const unknown = await runCli(['token', 'revoke', 'ffffffff-0000', '--db', db]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/No live token with id ffffffff-0000/);
  });
});

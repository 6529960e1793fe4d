import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SERVICE_VERSION } from '../../server/platform/version.js';
import { runCli, startServe, tempDir } from '../helpers/cli.js';

describe('recsvc binary', () => {
  it('prints its version and a help that lists the commands', async () => {
    const version = await runCli(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${SERVICE_VERSION}\n` });
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/serve/);
    expect(help.stdout).toMatch(/token/);
    expect(help.stdout).toMatch(/Examples:/);
    const serveHelp = await runCli(['serve', '--help']);
    expect(serveHelp.stdout).toMatch(/--rate-limit/);
    expect(serveHelp.stdout).toMatch(/\$ recsvc serve --demo/);
  });

  it('exits 2 with a one-line error on an unknown command or flag', async () => {
    for (const args of [['bogus'], ['serve', '--bogus'], ['token', 'create', '--scopes', 'read', '--tier', 'gold']]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.split('\n')[0]).toMatch(/^error: /);
      expect(result.stderr).toMatch(/--help/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('recsvc serve start-up checks', () => {
  it('rejects bad settings with a clear message and exit 2', async () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--port', 'abc'], {}, /--port\/RECSVC_PORT must be an integer/],
      [[], { RECSVC_PORT: '70000' }, /RECSVC_PORT must be an integer/],
      [['--log-level', 'loud'], {}, /--log-level must be one of/],
      [['--rate-limit', 'maybe'], {}, /--rate-limit\/RECSVC_RATE_LIMIT must be "on" or "off"/],
      [['--public-url', 'recs.example.org'], {}, /--public-url\/RECSVC_PUBLIC_URL must be an absolute URL/],
      [['--public-url', 'https://recs.example.org/?x=1'], {}, /without credentials, query or fragment/],
      [
        ['--cors-origins', 'https://elk.zone/path'],
        {},
        /--cors-origins\/RECSVC_CORS_ORIGINS must be \* or a comma-separated list of origins/,
      ],
      [[], { RECSVC_REQUEST_TIMEOUT_MS: '30s' }, /RECSVC_REQUEST_TIMEOUT_MS must be a whole number/],
      [[], { RECSVC_HEADERS_TIMEOUT_MS: '60000', RECSVC_REQUEST_TIMEOUT_MS: '1000' }, /must not exceed RECSVC_REQUEST_TIMEOUT_MS/],
      [[], { RECSVC_MAX_CONNECTIONS: '0' }, /RECSVC_MAX_CONNECTIONS must be a whole number ≥ 1/],
      [[], { RECSVC_LOAD_SHEDDING: 'maybe' }, /RECSVC_LOAD_SHEDDING must be "on" or "off"/],
      [[], { RECSVC_PROFILE_CACHE: '10k' }, /RECSVC_PROFILE_CACHE must be a whole number ≥ 1/],
      [[], { RECSVC_PROFILE_CACHE_MB: '0' }, /RECSVC_PROFILE_CACHE_MB must be a whole number ≥ 1/],
      [[], { RECSVC_RESULT_CACHE_MB: 'lots' }, /RECSVC_RESULT_CACHE_MB must be a whole number ≥ 1/],
      [[], { RECSVC_MEMORY_MB: '512M' }, /RECSVC_MEMORY_MB must be a whole number ≥ 9, got "512M"/],
      [[], { RECSVC_SQLITE_MMAP_MB: '-1' }, /RECSVC_SQLITE_MMAP_MB must be a whole number ≥ 0/],
      [[], { RECSVC_HEAP_GROWTH_PERCENT: 'half' }, /RECSVC_HEAP_GROWTH_PERCENT must be a whole number ≥ 0/],
      [[], { RECSVC_STATUS_JSON_MAX_CHARS: '0' }, /RECSVC_STATUS_JSON_MAX_CHARS must be a whole number ≥ 1/],
    ];
    // Each case is its own process: run them side by side.
    const results = await Promise.all(cases.map(([args, env]) => runCli(['serve', '--db', join(tempDir(), 'x.db'), ...args], { env })));
    results.forEach((result, i) => {
      const [args, env, message] = cases[i]!;
      expect(result.code, `${args.join(' ')} ${JSON.stringify(env)}`).toBe(2);
      expect(result.stderr).toMatch(message);
    });
  }, 120_000);

  it('refuses an unreadable database file', async () => {
    const path = join(tempDir(), 'garbage.db');
    writeFileSync(path, 'this is not an SQLite database, just text that is long enough to have a header'.repeat(20));
    const result = await runCli(['serve', '--db', path, '--port', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot open database .*garbage\.db/);
  });

  it('refuses a database written by a newer recsvc, leaving it untouched', async () => {
    const path = join(tempDir(), 'newer.db');
    const init = await runCli(['token', 'list', '--db', path, '--json']);
    expect(init.code).toBe(0);
    const sqlite = new SQLite(path);
    sqlite.prepare("INSERT INTO kysely_migration (name, timestamp) VALUES ('9999-from-the-future', '2030-01-01')").run();
    const before = sqlite.prepare('SELECT count(*) AS n FROM kysely_migration').get();
    sqlite.close();
    const result = await runCli(['serve', '--db', path, '--port', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/newer recsvc.*9999-from-the-future/);
    const after = new SQLite(path);
    expect(after.prepare('SELECT count(*) AS n FROM kysely_migration').get()).toEqual(before);
    after.close();
  });
});

describe('recsvc serve when it cannot listen', () => {
  it('exits 2 with one line when the port is taken, closing the database instead of hanging', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    const db = join(tempDir(), 'busy.db');
    try {
      const result = await runCli(['serve', '--db', db, '--port', String(port), '--log-level', 'silent']);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([
        `recsvc: cannot listen on 127.0.0.1:${port}: the port is already in use (choose another with --port)`,
      ]);
    } finally {
      holder.close();
    }
    // Closed cleanly: SQLite removes the WAL and shared-memory files on the last close.
    expect(existsSync(`${db}-wal`)).toBe(false);
    expect(existsSync(`${db}-shm`)).toBe(false);
  });

  it('exits 2 when the address is not on this machine', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): binding to it fails locally; nothing is sent anywhere.
    const result = await runCli([
      'serve',
      '--db',
      join(tempDir(), 'addr.db'),
      '--host',
      '192.0.2.1',
      '--port',
      '0',
      '--log-level',
      'silent',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^recsvc: cannot listen on 192\.0\.2\.1:0: the address is not available on this machine \(check --host\)$/m,
    );
  });
});

describe('recsvc serve', () => {
  it('says in its start-up log when rate limiting is off, and stops cleanly on SIGINT', async () => {
    const server = await startServe(['--db', join(tempDir(), 'off.db'), '--rate-limit', 'off', '--log-level', 'info']);
    const response = await fetch(`${server.baseUrl}/api/v1/anything`);
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    // The served process exports Node's process metrics beside the service's own.
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(metrics).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(metrics).toMatch(/^service_request_count\{/m);
    expect(await server.stop('SIGINT')).toBe(0);
    expect(server.logs()).toMatch(/rate limiting is OFF/);
    // The WAL checkpointer's worker thread started from the built script and never failed.
    expect(server.logs()).not.toMatch(/background checkpoint/);
  });
});

describe('recsvc token', () => {
  it('creates (shown once), lists (no secret) and revokes tokens that the server honours', async () => {
    const db = join(tempDir(), 'tokens.db');
    const created = await runCli([
      'token',
      'create',
      '--scopes',
      'read,write',
      '--user',
      'alice',
      '--tier',
      'premium',
      '--db',
      db,
      '--json',
    ]);
    expect(created.code).toBe(0);
    const { token, id } = JSON.parse(created.stdout) as { token: string; id: string };
    expect(token).toMatch(/^rsv_[A-Za-z0-9_-]{40,}$/);

    const listed = await runCli(['token', 'list', '--db', db, '--json']);
    expect(listed.stdout).not.toContain(token);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id, user_id: 'alice', scopes: ['read', 'write'], tier: 'premium', revoked_at: null }),
    ]);

    const server = await startServe(['--db', db, '--log-level', 'info']);
    try {
      const ok = await fetch(`${server.baseUrl}/api/v1/nothing-here`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.headers.get('x-ratelimit-limit'), `${ok.status} ${await ok.clone().text()}`).toBe('120');
      expect((await runCli(['token', 'revoke', id, '--db', db])).code).toBe(0);
      const revoked = await fetch(`${server.baseUrl}/api/v1/nothing-here`, { headers: { authorization: `Bearer ${token}` } });
      expect(revoked.headers.get('x-ratelimit-limit')).toBe('20');
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.logs()).toContain('incoming request');
    expect(server.logs()).not.toContain(token);
    const again = await runCli(['token', 'revoke', id, '--db', db]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/No live token/);
  });

  it('honours --expires: never, a duration, and refuses a zero one', async () => {
    const db = join(tempDir(), 'expiry.db');
    const never = JSON.parse((await runCli(['token', 'create', '--scopes', 'read', '--expires', 'never', '--db', db, '--json'])).stdout);
    expect(never.expires_at).toBeNull();
    const week = JSON.parse((await runCli(['token', 'create', '--scopes', 'read', '--expires', '7d', '--db', db, '--json'])).stdout);
    expect(Date.parse(week.expires_at) - Date.parse(week.created_at)).toBe(7 * 86400 * 1000);
    const zero = await runCli(['token', 'create', '--scopes', 'read', '--expires', '0s', '--db', db]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--expires: expected a positive duration/);
  });

  it('rejects an unknown scope with exit 2', async () => {
    const result = await runCli(['token', 'create', '--scopes', 'read,root', '--db', join(tempDir(), 't.db')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown scope "root"/);
  });
});

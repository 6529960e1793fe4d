/**
 * The committed nginx recipe (deploy/nginx/recsvc.conf) run for real: nginx as a child process
 * with that file, only its ports, addresses and certificate paths substituted, a self-signed
 * certificate for 127.0.0.1 made here with the openssl CLI, and `recsvc serve --trust-proxy
 * 127.0.0.1 --public-url https://…` behind it. Real HTTPS requests (undici, trusting that
 * certificate) check what docs/https.md promises: the API answers through the proxy, the
 * URLs recsvc writes (Link, OAuth metadata) are the public https:// ones, rate limits count
 * the client's address nginx forwards (not nginx's own), and plain HTTP is redirected.
 * Skips with a reason when nginx is not installed (.ci/run installs it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, startServe, tempDir, type ServeProcess } from '../helpers/cli.js';
import { selfSignedCertificate } from '../helpers/self-signed.js';
import { experimentBody } from '../server/experiments/experiment-bodies.js';

const nginxPath = spawnSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
const skipReason = nginxPath ? undefined : 'nginx is not installed (apt-get install nginx; .ci/run does)';
if (skipReason) console.log(`test/deploy/nginx-recipe.test.ts skipped: ${skipReason}`);

const RECIPE = join(REPO_ROOT, 'deploy/nginx/recsvc.conf');

/** A port free right now on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, log: () => string): Promise<void> {
  const start = Date.now();
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() - start > 10_000) throw new Error(`nginx did not listen on ${port}:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The recipe with only the ports, the listening addresses and the certificate paths replaced. */
export function recipeFor(text: string, ports: { http: number; https: number; upstream: number }, cert: string, key: string): string {
  const replaced = text
    .replace(/^\s*listen \[::\]:\d+.*$/gm, '')
    .replace(/listen 80;/, `listen 127.0.0.1:${ports.http};`)
    .replace(/listen 443 ssl( http2)?;/, `listen 127.0.0.1:${ports.https} ssl$1;`)
    .replace(/server 127\.0\.0\.1:8080;/, `server 127.0.0.1:${ports.upstream};`)
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${cert};`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${key};`);
  for (const expected of [ports.http, ports.https, ports.upstream, cert, key]) {
    if (!replaced.includes(String(expected))) throw new Error(`the recipe no longer has the line this test substitutes ${expected} into`);
  }
  return replaced;
}

let dir: string;
let serve: ServeProcess | undefined;
let nginx: ChildProcess | undefined;
let nginxLog = '';
let publicUrl: string;
let httpsPort: number;
let httpPort: number;
let cert: string;
let adminToken: string;

beforeAll(async () => {
  if (skipReason) return;
  dir = tempDir('recsvc-nginx-');
  // nginx's workers run as nobody when the master is root: they must reach the temp folders.
  chmodSync(dir, 0o755);
  const { cert: certPath, key: keyPath } = selfSignedCertificate(dir, 'nginx');
  cert = readFileSync(certPath, 'utf8');

  const dbPath = join(dir, 'recsvc.db');
  const minted = await runCli(['token', 'create', '--scopes', 'read,write,admin', '--json', '--db', dbPath]);
  adminToken = (JSON.parse(minted.stdout) as { token: string }).token;
  httpsPort = await freePort();
  httpPort = await freePort();
  publicUrl = `https://127.0.0.1:${httpsPort}`;
  // A quarter of the spec's limits: 5 anonymous requests a minute per address.
  serve = await startServe(['--db', dbPath, '--log-level', 'info', '--trust-proxy', '127.0.0.1', '--public-url', publicUrl], {
    RECSVC_RATE_LIMIT_SCALE: '0.25',
  });
  const upstream = Number(new URL(serve.baseUrl).port);

  writeFileSync(
    join(dir, 'recsvc.conf'),
    recipeFor(readFileSync(RECIPE, 'utf8'), { http: httpPort, https: httpsPort, upstream }, certPath, keyPath),
  );
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  writeFileSync(
    join(dir, 'nginx.conf'),
    `pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
    access_log off;
    client_body_temp_path ${dir}/body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    include ${dir}/recsvc.conf;
}
`,
  );
  nginx = spawn(nginxPath!, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  nginx.stdout?.on('data', (chunk: Buffer) => (nginxLog += chunk.toString()));
  nginx.stderr?.on('data', (chunk: Buffer) => (nginxLog += chunk.toString()));
  await waitForPort(httpsPort, () => `${nginxLog}${safeRead(join(dir, 'error.log'))}`);
}, 60_000);

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((resolve) => nginx?.once('exit', resolve));
    nginx.kill('SIGQUIT');
    await exited;
  }
  await serve?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** An HTTPS client trusting the test certificate, connecting from `from` (a loopback address). */
function client(from = '127.0.0.1'): Agent {
  return new Agent({ localAddress: from, connect: { ca: cert } });
}

describe.skipIf(skipReason !== undefined)('recsvc behind nginx (deploy/nginx/recsvc.conf)', () => {
  it('answers through TLS, and writes the public https:// URL in OAuth metadata and Link headers', async () => {
    const agent = client();
    try {
      const health = await request(`${publicUrl}/api/v1/health`, { dispatcher: agent });
      expect(health.statusCode).toBe(200);
      expect(((await health.body.json()) as { status: string }).status).toBeDefined();

      const metadata = await request(`${publicUrl}/.well-known/oauth-authorization-server`, { dispatcher: agent });
      expect(metadata.statusCode).toBe(200);
      const body = (await metadata.body.json()) as Record<string, string>;
      expect(body.issuer).toBe(publicUrl);
      expect(body.authorization_endpoint).toBe(`${publicUrl}/api/v1/oauth/authorize`);
      expect(body.token_endpoint).toBe(`${publicUrl}/api/v1/oauth/token`);

      const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
      for (const name of ['first', 'second']) {
        const created = await request(`${publicUrl}/api/v1/analytics/experiments`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify(experimentBody({ name })),
          dispatcher: agent,
        });
        expect(created.statusCode, await created.body.text()).toBe(201);
      }
      const page = await request(`${publicUrl}/api/v1/analytics/experiments?limit=1`, { headers: admin, dispatcher: agent });
      expect(page.statusCode).toBe(200);
      await page.body.dump();
      const next = /<([^>]+)>;\s*rel="next"/.exec(String(page.headers.link))?.[1];
      expect(next?.startsWith(`${publicUrl}/api/v1/analytics/experiments?`), String(page.headers.link)).toBe(true);
      const second = await request(next!, { headers: admin, dispatcher: agent });
      expect(second.statusCode).toBe(200);
      expect(((await second.body.json()) as { data: unknown[] }).data).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });

  it("counts rate limits by the client's address nginx forwards, and ignores the client's own X-Forwarded-For", async () => {
    const first = client('127.0.0.2');
    const second = client('127.0.0.3');
    try {
      const anonymous = (agent: Agent, spoof?: string) =>
        request(`${publicUrl}/api/v1/analytics/experiments`, {
          dispatcher: agent,
          ...(spoof === undefined ? {} : { headers: { 'x-forwarded-for': spoof } }),
        }).then(async (response) => {
          await response.body.dump();
          return response.statusCode;
        });
      // 127.0.0.2 spends its 5 anonymous requests (401s count too); a forged address does not help it.
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push(await anonymous(first, `10.9.8.${i}`));
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      expect(await anonymous(first, '10.9.8.99')).toBe(429);
      // Another client's address has its own window: nginx's own address (127.0.0.1 for both) is not what counts.
      expect(await anonymous(second)).toBe(401);
      expect(serve?.logs()).toMatch(/"remoteAddress":"127\.0\.0\.2"/);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('redirects plain HTTP to https://', async () => {
    const response = await request(`http://127.0.0.1:${httpPort}/api/v1/health?x=1`);
    await response.body.dump();
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toBe('https://127.0.0.1/api/v1/health?x=1');
  });
});

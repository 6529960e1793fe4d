/**
 * `recsvc serve --tls-cert/--tls-key` (RECSVC_TLS_CERT/RECSVC_TLS_KEY): its own HTTPS listener,
 * as a child process, with a self-signed certificate for 127.0.0.1 made here by the openssl
 * CLI; real HTTPS requests trusting it; and every mistake refused at start with exit 2 and one
 * line naming the file.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, tempDir } from '../helpers/cli.js';
import { selfSignedCertificate } from '../helpers/self-signed.js';

let dir: string;
let certPath: string;
let keyPath: string;
let otherKeyPath: string;

const selfSigned = (name: string) => selfSignedCertificate(dir, name);

beforeAll(() => {
  dir = tempDir('recsvc-tls-');
  ({ cert: certPath, key: keyPath } = selfSigned('server'));
  otherKeyPath = selfSigned('other').key;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('recsvc serve with its own TLS listener', () => {
  it('answers HTTPS, and writes https:// URLs from the connection it was reached on', async () => {
    const serve = await startServe(['--db', join(dir, 'served.db'), '--log-level', 'info', '--tls-cert', certPath], {
      RECSVC_TLS_KEY: keyPath,
    });
    const agent = new Agent({ connect: { ca: readFileSync(certPath, 'utf8') } });
    try {
      expect(serve.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const health = await request(`${serve.baseUrl}/api/v1/health`, { dispatcher: agent });
      expect(health.statusCode).toBe(200);
      await health.body.dump();
      const metadata = await request(`${serve.baseUrl}/.well-known/oauth-authorization-server`, { dispatcher: agent });
      expect(((await metadata.body.json()) as { issuer: string }).issuer).toBe(serve.baseUrl);
      // A client that does not trust the certificate is refused by TLS itself.
      await expect(request(`${serve.baseUrl}/api/v1/health`)).rejects.toThrow(/self[- ]signed|certificate/i);
      // Plain HTTP on the TLS port gets no API answer.
      const plain = await fetch(`${serve.baseUrl.replace('https:', 'http:')}/api/v1/health`).then(
        (response) => response.status,
        () => 'refused',
      );
      expect(plain).not.toBe(200);
    } finally {
      await agent.close();
      expect(await serve.stop()).toBe(0);
    }
  });

  it.each([
    [
      'a certificate without its key',
      () => ['--tls-cert', certPath],
      {},
      /--tls-cert\/RECSVC_TLS_CERT is set but --tls-key\/RECSVC_TLS_KEY is not/,
    ],
    [
      'a key without its certificate',
      () => [],
      () => ({ RECSVC_TLS_KEY: keyPath }),
      /--tls-key\/RECSVC_TLS_KEY is set but --tls-cert\/RECSVC_TLS_CERT is not/,
    ],
    [
      'a certificate file that does not exist',
      () => ['--tls-cert', join(dir, 'missing.pem'), '--tls-key', keyPath],
      {},
      /--tls-cert\/RECSVC_TLS_CERT: cannot read .*missing\.pem \(no such file\)/,
    ],
    [
      'a certificate file that is not PEM',
      () => ['--tls-cert', join(dir, 'garbage.pem'), '--tls-key', keyPath],
      {},
      /--tls-cert\/RECSVC_TLS_CERT: .*garbage\.pem is not a PEM certificate/,
    ],
    [
      'a key file that is not PEM',
      () => ['--tls-cert', certPath, '--tls-key', join(dir, 'garbage.pem')],
      {},
      /--tls-key\/RECSVC_TLS_KEY: .*garbage\.pem is not a PEM private key/,
    ],
    [
      'the key of another certificate',
      () => ['--tls-cert', certPath, '--tls-key', otherKeyPath],
      {},
      /--tls-key\/RECSVC_TLS_KEY: .*other\.key\.pem is not the key of the certificate in .*server\.cert\.pem/,
    ],
  ])('refuses %s at start: exit 2, one line naming the file', async (_label, flags, env, message) => {
    writeFileSync(join(dir, 'garbage.pem'), 'not a pem file\n');
    const result = await runCli(['serve', '--port', '0', '--db', join(dir, 'refused.db'), ...flags()], {
      env: typeof env === 'function' ? env() : env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

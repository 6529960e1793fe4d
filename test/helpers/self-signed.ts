/**
 * A self-signed certificate for 127.0.0.1 and localhost, valid one day, made by the openssl CLI
 * (Debian's package, on every machine the tests run on): for the HTTPS tests (recsvc's own TLS
 * listener, the nginx recipe). Files `<name>.cert.pem` and `<name>.key.pem` in `dir`.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export function selfSignedCertificate(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.cert.pem`);
  const key = join(dir, `${name}.key.pem`);
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  return { cert, key };
}

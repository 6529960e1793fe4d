/**
 * recsvc's own TLS listener: a PEM certificate (chain) and its private key, from
 * `--tls-cert`/`--tls-key` or RECSVC_TLS_CERT/RECSVC_TLS_KEY. Both or neither; each file
 * read and parsed at start, and the key checked against the certificate, so a mistake stops
 * `serve` with one line naming the file (exit 2) instead of failing the first handshake.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { InputError } from '../src/errors.js';

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
  certPath: string;
  keyPath: string;
}

const CERT = '--tls-cert/RECSVC_TLS_CERT';
const KEY = '--tls-key/RECSVC_TLS_KEY';

/** The certificate and key files, read and checked; undefined when neither is set. */
export function readTlsFiles(certPath: string | undefined, keyPath: string | undefined): TlsFiles | undefined {
  const cert = certPath === '' ? undefined : certPath;
  const key = keyPath === '' ? undefined : keyPath;
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined) {
    const [given, missing] = cert === undefined ? [KEY, CERT] : [CERT, KEY];
    throw new InputError(`${given} is set but ${missing} is not: HTTPS needs both the certificate and its key`);
  }
  const certPem = readPem(CERT, cert);
  const keyPem = readPem(KEY, key);
  check(() => createSecureContext({ cert: certPem }), `${CERT}: ${cert} is not a PEM certificate`);
  check(() => createSecureContext({ key: keyPem }), `${KEY}: ${key} is not a PEM private key (or it is encrypted)`);
  check(() => createSecureContext({ cert: certPem, key: keyPem }), `${KEY}: ${key} is not the key of the certificate in ${cert}`);
  return { cert: certPem, key: keyPem, certPath: cert, keyPath: key };
}

function readPem(setting: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new InputError(`${setting}: cannot read ${path} (${reason})`);
  }
}

function check(build: () => unknown, message: string): void {
  try {
    build();
  } catch (error) {
    throw new InputError(`${message} (${(error as Error).message})`);
  }
}

/**
 * The FASP key: it seals the Ed25519 private keys stored in `fasp_servers`, so that a copy
 * of the database alone cannot sign as this service. Like the pseudonym key it never lives in
 * the database:
 * - RECSVC_FASP_KEY, hex or base64 of 32 bytes; else
 * - the file `<database path>.fasp-key` (64 hex digits), created with mode 0600 when absent;
 * - an in-memory database gets a random key for its lifetime;
 * - a database server (a `postgres://` URL) needs RECSVC_FASP_KEY, the same on every instance.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { InputError } from '../../src/errors.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

function decode(text: string): Buffer | undefined {
  const trimmed = text.trim();
  const key = /^(?:[0-9a-fA-F]{2})+$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  return key.length === KEY_BYTES ? key : undefined;
}

/** The FASP key for the database at `dbPath` (see the file's comment); InputError when it cannot be had. */
export function loadFaspKey(source: { configured?: string | undefined; dbPath?: string | undefined }): Buffer {
  if (source.configured !== undefined) {
    const key = decode(source.configured);
    if (!key) throw new InputError(`RECSVC_FASP_KEY must be hex or base64 of ${KEY_BYTES} bytes`);
    return key;
  }
  const dbPath = source.dbPath;
  if (dbPath !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(dbPath)) {
    throw new InputError('with a database server (a postgres:// URL), RECSVC_FASP_KEY must be set, the same on every instance');
  }
  if (dbPath === undefined || dbPath === '' || dbPath === ':memory:' || dbPath.startsWith('file::memory:')) return randomBytes(KEY_BYTES);
  const path = `${dbPath}.fasp-key`;
  try {
    const key = decode(readFileSync(path, 'utf8'));
    if (!key) throw new InputError(`the FASP key file ${path} is malformed`, 'restore it from a backup, or register the servers again');
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(KEY_BYTES);
  try {
    writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadFaspKey(source);
    throw new InputError(`cannot create the FASP key file ${path}: ${(error as Error).message}`);
  }
  return key;
}

/** `secret` sealed under `key`: base64 of IV, GCM tag and ciphertext. */
export function seal(key: Buffer, secret: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(secret), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** The secret `seal` sealed; InputError when the key is not the one it was sealed with. */
export function unseal(key: Buffer, sealed: string): Buffer {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw new InputError(
      'a FASP private key does not open with this FASP key',
      'use the RECSVC_FASP_KEY or key file it was registered with',
    );
  }
}

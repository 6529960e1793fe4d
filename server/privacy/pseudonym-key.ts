/**
 * The key of the pseudonyms that stand for users in analytics tables. It never lives in the
 * database (a copy of the database alone must not re-identify anyone):
 * - RECSVC_PSEUDONYM_KEY, hex or base64, at least 32 bytes; else
 * - the file `<database path>.pseudonym-key` (64 hex digits), created with mode 0600 on the
 *   first start when absent, and read on every later start, so pseudonyms survive restarts;
 * - an in-memory database gets a random key for its lifetime;
 * - a database server (a `postgres://` URL) needs RECSVC_PSEUDONYM_KEY: its instances must share one key.
 * A key file that cannot be read or does not hold a key stops the start with its path.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { InputError } from '../../src/errors.js';

export const KEY_BYTES = 32;
export const KEY_FILE_SUFFIX = '.pseudonym-key';

/** Whether the database is a server's URL (`postgres://…`) rather than a file. */
export function isDatabaseUrl(dbPath: string | undefined): boolean {
  return dbPath !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(dbPath);
}

/** Where the key of the database file at `dbPath` is kept; undefined for an in-memory database or a server's URL. */
export function pseudonymKeyPath(dbPath: string | undefined): string | undefined {
  if (dbPath === undefined || dbPath === '' || dbPath === ':memory:' || dbPath.startsWith('file::memory:') || isDatabaseUrl(dbPath)) {
    return undefined;
  }
  return `${dbPath}${KEY_FILE_SUFFIX}`;
}

/** The key bytes of a hex or base64 text, or undefined when it is neither or shorter than 32 bytes. */
export function decodeKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  let key: Buffer | undefined;
  if (/^(?:[0-9a-fA-F]{2})+$/.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || /^[A-Za-z0-9_-]+$/.test(trimmed)) {
    key = Buffer.from(trimmed, trimmed.includes('-') || trimmed.includes('_') ? 'base64url' : 'base64');
  }
  return key !== undefined && key.length >= KEY_BYTES ? key : undefined;
}

export interface PseudonymKeySource {
  /** RECSVC_PSEUDONYM_KEY, when set. */
  configured?: string | undefined;
  /** The database file (the key file goes beside it). */
  dbPath?: string | undefined;
}

/** The deployment's pseudonym key (see the file's comment); InputError when it cannot be had. */
export function loadPseudonymKey(source: PseudonymKeySource): Buffer {
  if (source.configured !== undefined) {
    const key = decodeKey(source.configured);
    if (!key) throw new InputError(`RECSVC_PSEUDONYM_KEY must be hex or base64 of at least ${KEY_BYTES} bytes`);
    return key;
  }
  if (isDatabaseUrl(source.dbPath)) {
    // Every instance sharing a database server must use the same key: no per-host file.
    throw new InputError('with a database server (a postgres:// URL), RECSVC_PSEUDONYM_KEY must be set, the same on every instance');
  }
  const path = pseudonymKeyPath(source.dbPath);
  if (path === undefined) return randomBytes(KEY_BYTES);
  return readKeyFile(path) ?? createKeyFile(path);
}

/** The key in the file, undefined when there is no file; InputError when it is unreadable or malformed. */
function readKeyFile(path: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError(`cannot read the pseudonym key file ${path}: ${(error as Error).message}`);
  }
  const key = decodeKey(text);
  if (!key) {
    throw new InputError(
      `the pseudonym key file ${path} is malformed: it must hold at least ${KEY_BYTES} bytes as hex`,
      'restore it from a backup; a new key would give every user a new pseudonym',
    );
  }
  return key;
}

/** A new random key, written with mode 0600; a file another process created meanwhile wins. */
function createKeyFile(path: string): Buffer {
  const key = randomBytes(KEY_BYTES);
  try {
    writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readKeyFile(path) ?? key;
    throw new InputError(`cannot create the pseudonym key file ${path}: ${(error as Error).message}`);
  }
  return key;
}

/**
 * The privacy policy on real SQLite files: the pseudonym key file (created 0600 beside the
 * database, reused on restart, refused when malformed or unreadable), the configured key,
 * the deployment default and a user's stored level read back after a restart.
 */
import { createHmac } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, type DatabaseHandle } from '../../../server/platform/db/connection.js';
import { migrateToLatest } from '../../../server/platform/db/migrate.js';
import { createPrivacyPolicy } from '../../../server/privacy/privacy-policy.service.js';
import { readPrivacySettings } from '../../../server/privacy/privacy.settings.js';

let dir: string;
let dbPath: string;
const open: DatabaseHandle[] = [];

async function database(): Promise<DatabaseHandle> {
  const handle = openSqlite(dbPath);
  open.push(handle);
  await migrateToLatest(handle.db);
  return handle;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'recsvc-privacy-'));
  dbPath = join(dir, 'service.db');
});
afterEach(async () => {
  for (const handle of open.splice(0)) await handle.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('pseudonym key', () => {
  it('is created 0600 beside the database on first start and reused after a restart', async () => {
    const first = await createPrivacyPolicy((await database()).db, { dbPath });
    const keyPath = `${dbPath}.pseudonym-key`;
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    const keyHex = readFileSync(keyPath, 'utf8').trim();
    expect(keyHex).toMatch(/^[0-9a-f]{64}$/);
    const pseudonym = first.pseudonym('alice@social.example');
    expect(pseudonym).toBe(createHmac('sha256', Buffer.from(keyHex, 'hex')).update('alice@social.example').digest('hex'));
    expect(pseudonym).not.toBe(first.pseudonym('bob@social.example'));
    // One account, one pseudonym, however its handle is spelled.
    expect(first.pseudonym('@Alice@Social.Example')).toBe(pseudonym);
    expect(first.pseudonym('acct:alice@social.example')).toBe(pseudonym);
    first.close();
    const second = await createPrivacyPolicy((await database()).db, { dbPath });
    expect(second.pseudonym('alice@social.example')).toBe(pseudonym);
    second.close();
    // The key is not in the database.
    const handle = await database();
    const tables = await handle.db.introspection.getTables();
    expect(tables.some((table) => table.name.includes('key'))).toBe(false);
  });

  it('refuses a malformed or unreadable key file, naming it', async () => {
    const { db } = await database();
    const keyPath = `${dbPath}.pseudonym-key`;
    writeFileSync(keyPath, 'not a key\n', { mode: 0o600 });
    await expect(createPrivacyPolicy(db, { dbPath })).rejects.toThrow(`the pseudonym key file ${keyPath} is malformed`);
    writeFileSync(keyPath, 'ab'.repeat(16), { mode: 0o600 });
    await expect(createPrivacyPolicy(db, { dbPath })).rejects.toThrow('malformed');
    if (process.getuid?.() !== 0) {
      writeFileSync(keyPath, 'ab'.repeat(32));
      chmodSync(keyPath, 0o000);
      await expect(createPrivacyPolicy(db, { dbPath })).rejects.toThrow(`cannot read the pseudonym key file ${keyPath}`);
    }
  });

  it('takes RECSVC_PSEUDONYM_KEY (hex or base64, 32 bytes or more) instead of a file', async () => {
    const { db } = await database();
    const key = Buffer.alloc(32, 7);
    const fromHex = await createPrivacyPolicy(db, { dbPath, pseudonymKey: key.toString('hex') });
    const fromBase64 = await createPrivacyPolicy(db, { dbPath, pseudonymKey: key.toString('base64') });
    expect(fromHex.pseudonym('u1')).toBe(createHmac('sha256', key).update('u1').digest('hex'));
    expect(fromBase64.pseudonym('u1')).toBe(fromHex.pseudonym('u1'));
    expect(() => statSync(`${dbPath}.pseudonym-key`)).toThrow();
    await expect(createPrivacyPolicy(db, { pseudonymKey: 'abcd' })).rejects.toThrow('RECSVC_PSEUDONYM_KEY must be hex or base64');
    fromHex.close();
    fromBase64.close();
  });

  it('a database server needs RECSVC_PSEUDONYM_KEY (instances share it): no key file', async () => {
    const { db } = await database();
    const url = 'postgres://recsvc@127.0.0.1:5432/recsvc';
    await expect(createPrivacyPolicy(db, { dbPath: url })).rejects.toThrow('RECSVC_PSEUDONYM_KEY must be set');
    const policy = await createPrivacyPolicy(db, { dbPath: url, pseudonymKey: 'ab'.repeat(32) });
    expect(policy.pseudonym('u1')).toBe(
      createHmac('sha256', Buffer.from('ab'.repeat(32), 'hex'))
        .update('u1')
        .digest('hex'),
    );
    await policy.setLevel('u1', 'none');
    expect(policy.levelOf('u1')).toBe('none');
  });

  it('an in-memory database gets an ephemeral key and no file', async () => {
    const memory = openSqlite(':memory:');
    open.push(memory);
    await migrateToLatest(memory.db);
    const a = await createPrivacyPolicy(memory.db, { dbPath: ':memory:' });
    const b = await createPrivacyPolicy(memory.db, {});
    expect(a.pseudonym('u')).toMatch(/^[0-9a-f]{64}$/);
    expect(a.pseudonym('u')).not.toBe(b.pseudonym('u'));
  });
});

describe('tracking levels', () => {
  it('RECSVC_DEFAULT_TRACKING_LEVEL: limited by default, a valid level taken, anything else refused', () => {
    expect(readPrivacySettings({}).defaultLevel).toBe('limited');
    expect(readPrivacySettings({ RECSVC_DEFAULT_TRACKING_LEVEL: 'full' }).defaultLevel).toBe('full');
    expect(() => readPrivacySettings({ RECSVC_DEFAULT_TRACKING_LEVEL: 'everything' })).toThrow(
      'RECSVC_DEFAULT_TRACKING_LEVEL must be one of full, limited, none, got "everything"',
    );
  });

  it('a stored choice wins over the default, survives a restart, and a miss of the bounded cache reads it again', async () => {
    const policy = await createPrivacyPolicy((await database()).db, { dbPath, defaultLevel: 'full', cacheCapacity: 2 });
    expect(policy.levelOf('alice')).toBe('full');
    await policy.setLevel('alice', 'none');
    expect(policy.levelOf('alice')).toBe('none');
    expect(policy.allowanceFor('alice').storeInteractions).toBe(false);
    for (const user of ['u1', 'u2', 'u3']) expect(policy.levelOf(user)).toBe('full');
    // alice was evicted: the read-only connection reads her committed choice.
    expect(policy.cachedUsers).toBe(2);
    expect(policy.levelOf('alice')).toBe('none');
    policy.close();
    const restarted = await createPrivacyPolicy((await database()).db, { dbPath, defaultLevel: 'limited' });
    expect(restarted.levelOf('alice')).toBe('none');
    expect(restarted.levelOf('bob')).toBe('limited');
    restarted.close();
  });

  it('a user being erased is at none until released', async () => {
    const policy = await createPrivacyPolicy((await database()).db, { dbPath, defaultLevel: 'full' });
    const seen: string[] = [];
    policy.onLevelChange((user, level) => seen.push(`${user}:${level}`));
    const release = policy.holdAtNone('alice');
    expect(policy.levelOf('alice')).toBe('none');
    release();
    release();
    expect(policy.levelOf('alice')).toBe('full');
    expect(seen).toEqual(['alice:full']);
    policy.close();
  });
});

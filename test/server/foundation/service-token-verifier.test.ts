import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ServiceTokenVerifier } from '../../../server/platform/auth/service-token-verifier.js';
import { insertToken } from '../../../server/platform/auth/token.repository.js';
import { createToken, hashToken } from '../../../server/platform/auth/token.service.js';
import { oncePerTurn, openSqlite } from '../../../server/platform/db/connection.js';
import { migrateToLatest } from '../../../server/platform/db/migrate.js';
import { tempDir } from '../../helpers/cli.js';

async function setUp() {
  const path = join(tempDir(), 'tokens.db');
  const database = openSqlite(path);
  await migrateToLatest(database.db);
  const verifier = new ServiceTokenVerifier(database.db, database.externalWrites);
  const { token, info } = await createToken(database.db, { scopes: ['read'], tier: 'authenticated', userId: 'alice', ttlSeconds: 60 });
  return { path, database, verifier, token, info };
}

describe('ServiceTokenVerifier', () => {
  it('answers from its cache until another process writes to the database', async () => {
    const { path, database, verifier, token, info } = await setUp();
    expect((await verifier.verify(token))?.userId).toBe('alice');

    // A change through this connection that the cache is not told about is not seen:
    // proof that the second answer came from the cache, not from a lookup.
    await database.db.updateTable('tokens').set({ user_id: 'mallory' }).where('id', '=', info.id).execute();
    expect((await verifier.verify(token))?.userId).toBe('alice');

    // Another process (here: a second connection, as `recsvc token revoke` would be) revokes it.
    const other = new SQLite(path);
    other.prepare('UPDATE tokens SET revoked_at = ? WHERE id = ?').run(new Date().toISOString(), info.id);
    other.close();
    // data_version is read once per event-loop turn (requests parsed together share it):
    // the revocation is seen from the next turn on, by every request after it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(await verifier.verify(token)).toBeUndefined();
    await database.close();
  });

  it("reads SQLite's data_version once per event-loop turn, and again in the next", async () => {
    let reads = 0;
    const counted = oncePerTurn(() => ++reads);
    expect([counted(), counted(), counted()]).toEqual([1, 1, 1]);
    await Promise.resolve(); // a microtask is still the same turn
    expect(counted()).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect([counted(), counted()]).toEqual([2, 2]);
    expect(reads).toBe(2);
  });

  it('forgets on request (for writers in this process) and checks expiry on every use', async () => {
    const { database, verifier, token, info } = await setUp();
    const now = Date.now();
    expect(await verifier.verify(token, now)).toBeDefined();
    expect(await verifier.verify(token, now + 61_000)).toBeUndefined(); // expired while cached
    await database.db
      .updateTable('tokens')
      .set({ revoked_at: new Date(now).toISOString() })
      .where('id', '=', info.id)
      .execute();
    expect(await verifier.verify(token, now)).toBeDefined();
    verifier.forget();
    expect(await verifier.verify(token, now)).toBeUndefined();
    expect(await verifier.verify('rsv_unknown', now)).toBeUndefined();
    expect(await verifier.verify('not-a-service-token', now)).toBeUndefined();
    await database.close();
  });

  it('knows a token only by its hash: the stored row holds the hash, and a secret stored in clear is refused', async () => {
    const { database, verifier, token, info } = await setUp();
    const row = await database.db.selectFrom('tokens').selectAll().where('id', '=', info.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashToken(token));
    expect(Object.values(row)).not.toContain(token);
    const inClear = 'rsv_stored-in-clear';
    await insertToken(database.db, { ...row, id: 'in-clear', token_hash: inClear });
    expect(await verifier.verify(inClear)).toBeUndefined();
    await database.close();
  });

  it('caches only live tokens: a token created after a miss is found at once', async () => {
    const { database, verifier } = await setUp();
    const later = await createToken(database.db, { scopes: ['admin'], tier: 'authenticated', userId: null, ttlSeconds: null });
    expect((await verifier.verify(later.token))?.scopes.has('admin')).toBe(true);

    // A miss first, then the row appears through this connection (which does not empty the
    // cache): found at once only because the miss was not cached.
    const token = 'rsv_created-after-a-miss';
    expect(await verifier.verify(token)).toBeUndefined();
    const row = await database.db
      .selectFrom('tokens')
      .selectAll()
      .where('token_hash', '=', hashToken(later.token))
      .executeTakeFirstOrThrow();
    await insertToken(database.db, { ...row, id: 'after-a-miss', token_hash: hashToken(token), user_id: 'carol' });
    expect((await verifier.verify(token))?.userId).toBe('carol');
    await database.close();
  });

  it('is not reset by checkpoints, which are not commits', async () => {
    const { path, database, verifier, token, info } = await setUp();
    expect(await verifier.verify(token)).toBeDefined();
    await database.db.updateTable('tokens').set({ user_id: 'mallory' }).where('id', '=', info.id).execute();
    const other = new SQLite(path);
    other.pragma('wal_checkpoint(PASSIVE)');
    other.close();
    expect((await verifier.verify(token))?.userId).toBe('alice'); // still the cached answer
    await database.close();
  });
});

/**
 * Repositories as they are, on PostgreSQL: service tokens (the precompiled lookup, prefix
 * search, revocation), user settings (concurrent upserts), interest vectors (bytes and
 * 64-bit instants) and the housekeeping agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTokenByHash } from '../../server/platform/auth/token.repository.js';
import { createToken, hashToken, listTokenInfos, revokeTokenById } from '../../server/platform/auth/token.service.js';
import { databaseMaintenanceAgent } from '../../server/platform/agents/database-maintenance.agent.js';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { findInterest, saveInterest } from '../../server/interactions/interaction.repository.js';
import { changeUserSettings, findUserSettings } from '../../server/settings/settings.repository.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

describe.skipIf(unavailable !== undefined)(suiteTitle('repositories', unavailable), () => {
  let schema: TestSchema;
  let database: DatabaseHandle;

  beforeAll(async () => {
    schema = await createTestSchema();
    database = await openDatabase(schema.url);
    await migrateToLatest(database.db);
  });

  afterAll(async () => {
    try {
      await database?.close();
    } finally {
      await schema?.drop();
    }
  });

  it('service tokens: created, found by hash, listed, revoked by id prefix', async () => {
    const now = new Date('2026-11-20T10:00:00.000Z');
    const { token, info } = await createToken(
      database.db,
      { scopes: ['read', 'write'], tier: 'premium', userId: 'u1', ttlSeconds: 3600 },
      now,
    );
    const row = await findTokenByHash(database.db, hashToken(token));
    expect(row).toMatchObject({ id: info.id, user_id: 'u1', tier: 'premium', revoked_at: null });
    expect((await listTokenInfos(database.db, { now })).map((t) => t.id)).toEqual([info.id]);
    expect(await revokeTokenById(database.db, info.id.slice(0, 10), now)).toBe(info.id);
    expect((await findTokenByHash(database.db, hashToken(token)))?.revoked_at).toBe(now.toISOString());
    expect(await listTokenInfos(database.db, { now })).toEqual([]);
  });

  it('user settings: concurrent changes of different settings both land, in one upsert each', async () => {
    await Promise.all([
      changeUserSettings(database.db, 'u1', { experiments_opt_out: 1 }, 1_763_632_800_000),
      changeUserSettings(database.db, 'u1', { reason_language: 'fr' }, 1_763_632_800_001),
    ]);
    const stored = await findUserSettings(database.db, 'u1');
    expect(stored).toMatchObject({ user_id: 'u1', experiments_opt_out: 1, reason_language: 'fr' });
    expect([1_763_632_800_000, 1_763_632_800_001]).toContain(stored!.updated_at_ms);
  });

  it('interest vectors keep their bytes and instants exactly', async () => {
    const interest = {
      refMs: 1_763_632_800_123,
      latestMs: 1_763_632_900_456,
      keys: ['cats', 'news'],
      values: new Float64Array([0.1, -2.5e-300]),
    };
    await saveInterest(database.db, 'u1', interest);
    await saveInterest(database.db, 'u1', { ...interest, values: new Float64Array([0.2, 1 / 3]) });
    const stored = await findInterest(database.db, 'u1');
    expect(stored).toEqual({ ...interest, values: new Float64Array([0.2, 1 / 3]) });
  });

  it('the housekeeping agent purges dead tokens and leaves storage to autovacuum', async () => {
    const old = new Date('2020-01-01T00:00:00.000Z');
    const { token } = await createToken(database.db, { scopes: ['read'], tier: 'authenticated', userId: null, ttlSeconds: 60 }, old);
    const agent = databaseMaintenanceAgent(database.db, 600);
    const outcome = await agent.run({ now: () => Date.parse('2026-11-20T10:00:00.000Z') } as never);
    // The token revoked above is kept (revoked today, not 30 days ago); the one expired in 2020 goes.
    expect(outcome).toMatchObject({ details: { tokens_purged: 1 } });
    expect(await findTokenByHash(database.db, hashToken(token))).toBeUndefined();
  });
});

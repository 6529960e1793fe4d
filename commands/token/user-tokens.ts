/**
 * Tokens for many users at once, minted on the server host like `recsvc token create --user`
 * (for `recsvc demo traffic`, whose simulated users each need their own: the server's rate
 * limits are per token). One transaction mints them all, one revokes them all: a write of
 * another process while the server is inside a transaction can make the server's fail, so
 * these writes happen before the first request and after the last.
 */
import { existsSync } from 'node:fs';
import type { Scope } from '../../src/auth/identity.js';
import { usageError } from '../support/cli-error.js';

/** Minted tokens by user id, and how to revoke them all and close the database. */
export interface UserTokens {
  readonly tokens: ReadonlyMap<string, string>;
  revokeAll(): Promise<void>;
}

/** What the tokens may do and how long they live. */
export interface UserTokenSpec {
  scopes: Scope[];
  ttlSeconds: number;
  label: string;
}

/** Mints a token per user in the database at `target` (an SQLite file that must exist, or a postgres:// URL). */
export async function mintUserTokens(target: string, userIds: readonly string[], spec: UserTokenSpec): Promise<UserTokens> {
  const [{ openDatabase, isPostgresTarget }, { migrateToLatest }, { createToken }, { revokeToken }] = await Promise.all([
    import('../../server/platform/db/connection.js'),
    import('../../server/platform/db/migrate.js'),
    import('../../server/platform/auth/token.service.js'),
    import('../../server/platform/auth/token.repository.js'),
  ]);
  if (!isPostgresTarget(target) && !existsSync(target)) {
    throw usageError(
      `--db: no database at ${target}: give the database of the running server (the one \`recsvc serve --db\` uses), ` +
        'or --shared-token to send every request with --token',
    );
  }
  const database = await openDatabase(target);
  const ids: string[] = [];
  const tokens = new Map<string, string>();
  try {
    await migrateToLatest(database.db);
    await database.db.transaction().execute(async (trx) => {
      for (const userId of userIds) {
        const created = await createToken(trx, {
          scopes: spec.scopes,
          tier: 'authenticated',
          userId,
          ttlSeconds: spec.ttlSeconds,
          label: spec.label,
        });
        ids.push(created.info.id);
        tokens.set(userId, created.token);
      }
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  return {
    tokens,
    async revokeAll() {
      try {
        const at = new Date().toISOString();
        await database.db.transaction().execute(async (trx) => {
          for (const id of ids) await revokeToken(trx, id, at);
        });
      } finally {
        await database.close();
      }
    },
  };
}

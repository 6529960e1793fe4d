/**
 * Who the simulated users are to the server. By default each one gets its own short-lived
 * token bound to it, minted in the server's database like `recsvc token create --user`: the
 * server then limits each simulated user as it limits a real one (its rate limits are per
 * token), so the demo fills an experiment on a server with its limits on. The tokens are
 * revoked when the run ends and expire shortly after it anyway (a Ctrl-C skips the revoking).
 *
 * With --shared-token every request carries the --token instead (an admin acts for anyone):
 * for a server whose database is elsewhere; its rate limits then apply to the whole community.
 */
import { existsSync } from 'node:fs';
import type { Scope } from '../../src/auth/identity.js';
import type { DatabaseHandle } from '../../server/db/connection.js';
import { usageError } from '../support/cli-error.js';
import type { TrafficOptions } from './traffic.options.js';

/** Hands out the bearer token each simulated user acts with, and cleans up after the run. */
export interface TrafficIdentities {
  /** Where the tokens come from, for the summary. */
  readonly source: string;
  tokenFor(userId: string): string | undefined;
  close(): Promise<void>;
}

/** Tokens live this long after the run's planned end: long enough for slow servers, short enough to be harmless. */
const TOKEN_GRACE_SECONDS = 600;

/** The identities of a run: minted per user from the database, or the shared --token. */
export async function openIdentities(options: TrafficOptions, userIds: readonly string[]): Promise<TrafficIdentities> {
  if (options.sharedToken === true) {
    return { source: 'every user with --token', tokenFor: () => options.token, close: () => Promise.resolve() };
  }
  const target = options.db ?? process.env.RECSVC_DATABASE_URL ?? process.env.RECSVC_DB ?? './recsvc.db';
  const [{ openDatabase, isPostgresTarget }, { migrateToLatest }, { createToken }, { revokeToken }] = await Promise.all([
    import('../../server/db/connection.js'),
    import('../../server/db/migrate.js'),
    import('../../server/auth/token.service.js'),
    import('../../server/auth/token.repository.js'),
  ]);
  if (!isPostgresTarget(target) && !existsSync(target)) {
    throw usageError(
      `--db: no database at ${target}: give the database of the running server (the one \`recsvc serve --db\` uses), ` +
        'or --shared-token to send every request with --token',
    );
  }
  const database: DatabaseHandle = await openDatabase(target);
  const tokens = new Map<string, { id: string; token: string }>();
  try {
    await migrateToLatest(database.db);
    // All in one transaction before the first request (and all revoked in one after the last):
    // a write of this process while the server is in a transaction can make the server's fail.
    const ttlSeconds = Math.ceil(options.duration) + TOKEN_GRACE_SECONDS;
    await database.db.transaction().execute(async (trx) => {
      for (const userId of userIds) {
        const spec = {
          scopes: ['read', 'write'] as Scope[],
          tier: 'authenticated' as const,
          userId,
          ttlSeconds,
          label: 'recsvc demo traffic',
        };
        const created = await createToken(trx, spec);
        tokens.set(userId, { id: created.info.id, token: created.token });
      }
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  return {
    source: `a token per user, minted in ${target}`,
    tokenFor: (userId) => tokens.get(userId)?.token,
    async close() {
      try {
        const at = new Date().toISOString();
        await database.db.transaction().execute(async (trx) => {
          for (const { id } of tokens.values()) await revokeToken(trx, id, at);
        });
      } finally {
        await database.close();
      }
    },
  };
}

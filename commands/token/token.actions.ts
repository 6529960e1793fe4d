/** The work behind `recsvc token ...`, against the server's database file. */
import { parseScopes } from '../../src/auth/identity.js';
import { NotFoundError } from '../../src/errors.js';
import { openSqlite, DatabaseOpenError, type DatabaseHandle } from '../../server/db/connection.js';
import { MigrationError, migrateToLatest } from '../../server/db/migrate.js';
import { createToken, listTokenInfos, revokeTokenById } from '../../server/auth/token.service.js';
import { CliError, usageError } from '../support/cli-error.js';
import { printJson, printLine, renderTable } from '../support/output.js';
import { parseDuration } from '../support/options.js';
import type { TokenCreateOptions } from './create.js';

async function withDatabase<T>(path: string | undefined, work: (database: DatabaseHandle) => Promise<T>): Promise<T> {
  const dbPath = path ?? process.env.RECSVC_DB ?? './recsvc.db';
  let database: DatabaseHandle;
  try {
    database = openSqlite(dbPath);
    await migrateToLatest(database.db);
  } catch (error) {
    if (error instanceof DatabaseOpenError || error instanceof MigrationError) throw usageError(error.message);
    throw error;
  }
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

/** Mints a token and prints it once. */
export async function runTokenCreate(options: TokenCreateOptions): Promise<void> {
  let scopes;
  try {
    scopes = parseScopes(options.scopes);
  } catch (error) {
    throw usageError(`--scopes: ${(error as Error).message}`);
  }
  let ttlSeconds: number | null;
  try {
    ttlSeconds = parseDuration(options.expires);
  } catch (error) {
    throw usageError(`--expires: ${(error as Error).message}`);
  }
  const created = await withDatabase(options.db, (database) =>
    createToken(database.db, {
      scopes,
      tier: options.tier,
      userId: options.user ?? null,
      ttlSeconds,
      ...(options.label !== undefined ? { label: options.label } : {}),
    }),
  );
  if (options.json) {
    printJson({ token: created.token, ...created.info });
    return;
  }
  printLine(created.token);
  process.stderr.write(
    `token ${created.info.id}: scopes ${scopes.join(',')}, tier ${created.info.tier}, user ${created.info.user_id ?? '(none)'}, ` +
      `expires ${created.info.expires_at ?? 'never'}. It is shown only this once.\n`,
  );
}

/** Lists tokens. */
export async function runTokenList(options: { db?: string; json?: boolean }): Promise<void> {
  const tokens = await withDatabase(options.db, (database) => listTokenInfos(database.db));
  if (options.json) {
    printJson(tokens);
    return;
  }
  printLine(
    renderTable(
      ['id', 'user', 'scopes', 'tier', 'label', 'expires', 'revoked'],
      tokens.map((t) => [t.id, t.user_id ?? '-', t.scopes.join(','), t.tier, t.label ?? '', t.expires_at ?? 'never', t.revoked_at ?? '']),
    ),
  );
}

/** Revokes a token. */
export async function runTokenRevoke(id: string, options: { db?: string; json?: boolean }): Promise<void> {
  try {
    await withDatabase(options.db, (database) => revokeTokenById(database.db, id));
  } catch (error) {
    if (error instanceof NotFoundError) throw new CliError(error.message);
    throw error;
  }
  if (options.json) printJson({ id, revoked: true });
  else printLine(`revoked ${id}`);
}

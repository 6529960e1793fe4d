/** The work behind `recsvc token ...`, against the server's database file. */
import { parseScopes } from '../../src/auth/identity.js';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { createToken, listTokenInfos, revokeTokenById } from '../../server/platform/auth/token.service.js';
import { printJson, printLine } from '../support/output.js';
import { parseDuration, parseFlag } from '../support/options.js';
import { renderTokenList } from './token-view.js';

export interface TokenListOptions {
  db?: string;
  all?: boolean;
  json?: boolean;
}

export interface TokenCreateOptions {
  scopes: string;
  tier: 'authenticated' | 'premium';
  user?: string;
  /** A duration like `24h`, or `never`; parsed in the action. */
  expires: string;
  label?: string;
  db?: string;
  json?: boolean;
}

async function withDatabase<T>(path: string | undefined, work: (database: DatabaseHandle) => Promise<T>): Promise<T> {
  const dbPath = path ?? process.env.RECSVC_DATABASE_URL ?? process.env.RECSVC_DB ?? './recsvc.db';
  // An unreadable database or a refused migration is an InputError: exit 2 through the funnel.
  const database = await openDatabase(dbPath);
  try {
    await migrateToLatest(database.db);
    return await work(database);
  } finally {
    await database.close();
  }
}

/** Mints a token and prints it once. */
export async function runTokenCreate(options: TokenCreateOptions): Promise<void> {
  const scopes = parseFlag('--scopes', options.scopes, parseScopes);
  const ttlSeconds = parseFlag('--expires', options.expires, parseDuration);
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

/** Lists the live tokens, or every token with --all. */
export async function runTokenList(options: TokenListOptions): Promise<void> {
  const now = new Date();
  const all = options.all === true;
  const tokens = await withDatabase(options.db, (database) => listTokenInfos(database.db, { all, now }));
  if (options.json) printJson(tokens);
  else printLine(renderTokenList(tokens, all, now));
}

/** Revokes a token by its id or the prefix `token list` shows. */
export async function runTokenRevoke(idOrPrefix: string, options: { db?: string; json?: boolean }): Promise<void> {
  const id = await withDatabase(options.db, (database) => revokeTokenById(database.db, idOrPrefix));
  if (options.json) printJson({ id, revoked: true });
  else printLine(`revoked ${id}`);
}

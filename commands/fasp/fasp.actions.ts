/** The work behind `recsvc fasp ...`, against the server's database and its FASP key. */
import { InputError } from '../../src/errors.js';
import { openDatabase } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { loadFaspKey } from '../../server/fasp/fasp-keys.js';
import { registerWithServer } from '../../server/fasp/fasp-registration.service.js';
import { FaspService, type FaspServer } from '../../server/fasp/fasp.service.js';
import { FaspDebugService } from '../../server/fasp/fasp-debug.service.js';
import { dataSharingState } from '../../server/fasp/fasp-data-sharing.service.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../server/platform/db/database.js';
import { faspSettingsFrom } from '../../server/fasp/fasp.settings.js';
import { printJson, printLine } from '../support/output.js';

export interface FaspRegisterOptions {
  db?: string;
  name?: string;
  baseUrl?: string;
  json?: boolean;
}

async function withFasp<T>(
  path: string | undefined,
  work: (service: FaspService, faspKey: Buffer, db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const dbPath = path ?? process.env.RECSVC_DATABASE_URL ?? process.env.RECSVC_DB ?? './recsvc.db';
  const database = await openDatabase(dbPath);
  try {
    await migrateToLatest(database.db);
    const faspKey = loadFaspKey({ configured: process.env.RECSVC_FASP_KEY, dbPath });
    return await work(new FaspService(database.db, faspKey), faspKey, database.db);
  } finally {
    await database.close();
  }
}

function faspBaseUrl(options: FaspRegisterOptions): string {
  if (options.baseUrl !== undefined) return options.baseUrl.replace(/\/+$/, '');
  const publicUrl = process.env.RECSVC_PUBLIC_URL;
  if (publicUrl === undefined || publicUrl === '') {
    throw new InputError(
      "this service's public URL is needed",
      'pass --base-url https://recs.example/fasp, or set RECSVC_PUBLIC_URL as for serve',
    );
  }
  return `${publicUrl.replace(/\/+$/, '')}${faspSettingsFrom(process.env).path}`;
}

function describe(server: FaspServer): string {
  return [
    `server id      ${server.id}`,
    `server         ${server.baseUrl} (${server.name})`,
    `fasp id        ${server.faspId}`,
    `fingerprint    ${server.fingerprint}   (this service's key: compare it in Mastodon's admin page)`,
    `server's key   ${server.serverFingerprint}`,
    `capabilities   ${server.capabilities.length === 0 ? '(none enabled yet)' : server.capabilities.join(', ')}`,
    `registered     ${new Date(server.createdAtMs).toISOString()}`,
  ].join('\n');
}

/** Registers with a server and prints what its admin compares. */
export async function runFaspRegister(serverBaseUrl: string, options: FaspRegisterOptions): Promise<void> {
  const base = faspBaseUrl(options);
  const name = options.name ?? faspSettingsFrom(process.env).name;
  const registration = await withFasp(options.db, (service, faspKey) =>
    registerWithServer(service, faspKey, { serverBaseUrl, name, faspBaseUrl: base }),
  );
  if (options.json) {
    printJson({ ...registration.server, registrationCompletionUri: registration.registrationCompletionUri ?? null });
    return;
  }
  printLine(describe(registration.server));
  printLine(
    `\nNow confirm the provider on the server${registration.registrationCompletionUri ? `: ${registration.registrationCompletionUri}` : ''},`,
  );
  printLine(`checking that it shows the fingerprint ${registration.server.fingerprint}, and enable trends.`);
}

/** Lists the registrations. */
export async function runFaspList(options: { db?: string; json?: boolean }): Promise<void> {
  const servers = await withFasp(options.db, (service) => service.list());
  if (options.json) printJson(servers);
  else if (servers.length === 0) printLine('no registrations (recsvc fasp register <server>)');
  else for (const server of servers) printLine(`${server.id}  ${server.baseUrl}  ${server.capabilities.join(',') || '-'}`);
}

/** Shows one registration, its data-sharing subscriptions and the debug callbacks it asked for (the debug capability's log). */
export async function runFaspShow(id: string, options: { db?: string; json?: boolean }): Promise<void> {
  const shown = await withFasp(options.db, async (service, _key, db) => {
    const server = await service.find(id);
    if (server === undefined) return undefined;
    const debugCallbacks = await new FaspDebugService(db, service).list(id, 20);
    return { server, dataSharing: await dataSharingState(db, id), debugCallbacks };
  });
  if (shown === undefined) throw new InputError(`no FASP registration ${id}`, 'recsvc fasp list shows them');
  if (options.json) {
    printJson({ ...shown.server, dataSharing: shown.dataSharing, debugCallbacks: shown.debugCallbacks });
    return;
  }
  printLine(describe(shown.server));
  printLine(`subscriptions  ${shown.dataSharing.subscriptions.join(', ') || '-'}`);
  printLine(`backfills      ${shown.dataSharing.backfills.join(', ') || '-'}`);
  printLine(shown.debugCallbacks.length === 0 ? 'debug calls    -' : 'debug calls    (newest first: when, from, callback status, body)');
  for (const call of shown.debugCallbacks)
    printLine(
      `  ${new Date(call.createdAtMs).toISOString()}  ${call.ip}  ${call.callbackStatus ?? 'pending/failed'}  ${call.body || '(empty)'}`,
    );
}

/** Removes one registration. */
export async function runFaspRemove(id: string, options: { db?: string; json?: boolean }): Promise<void> {
  const removed = await withFasp(options.db, (service) => service.remove(id));
  if (!removed) throw new InputError(`no FASP registration ${id}`, 'recsvc fasp list shows them');
  if (options.json) printJson({ id, removed: true });
  else printLine(`removed ${id}`);
}

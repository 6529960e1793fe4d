/** The app (with its settings feature) on a real migrated database (the run's backend), for inject tests. */
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../../server/app.js';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import { createSocialServices, type SocialServices } from '../../../server/platform/social/social.service.js';
import { headerMinter, plainPrivacy } from '../../helpers/test-app.js';
import { openTestDatabase } from '../../helpers/test-database.js';

export interface SettingsHarness {
  app: FastifyInstance;
  database: DatabaseHandle;
  /** Headers of a read/write token bound to `userId`. */
  userHeaders(userId: string, scopes?: Array<'read' | 'write'>): Promise<Record<string, string>>;
  /** Headers of an admin token (not bound to a user). */
  adminHeaders(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export interface SettingsHarnessOptions extends Partial<Omit<AppOptions, 'database'>> {
  /** A file database, so a second harness can reopen it (a restart). */
  dbPath?: string;
}

export async function settingsHarness(options: SettingsHarnessOptions = {}): Promise<SettingsHarness> {
  const { dbPath, ...appOptions } = options;
  const opened = await openTestDatabase(dbPath);
  const { database } = opened;
  const social: SocialServices = appOptions.social ?? createSocialServices(appOptions.socialOptions);
  const privacy = appOptions.privacy ?? (await plainPrivacy(opened));
  const app = await buildApp({ ...appOptions, privacy, social, database, rateLimit: appOptions.rateLimit ?? null });
  await app.ready();
  return {
    app,
    database,
    ...headerMinter(database),
    async close() {
      await app.close();
      if (appOptions.social === undefined) await social.close();
      await opened.close();
    },
  };
}

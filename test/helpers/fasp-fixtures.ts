/**
 * A served app with the FASP provider on, a fake Mastodon registered with it and confirmed,
 * and stored accounts and posts with the consent flags the tests need (written as their own
 * instance sent them, so the account's profile is the origin's word).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { registerWithServer } from '../../server/fasp/fasp-registration.service.js';
import { FaspService } from '../../server/fasp/fasp.service.js';
import { faspSettingsFrom } from '../../server/fasp/fasp.settings.js';
import { writeInstanceStatuses } from '../../server/posts/instance-statuses.js';
import type { StatusInput } from '../../src/schemas/post.schema.js';
import { FakeMastodon } from './fake-mastodon-fasp.js';
import { makeStatus } from './mastodon-fixtures.js';
import { createTestApp, type TestApp } from './test-app.js';

export interface FaspRig {
  t: TestApp;
  mastodon: FakeMastodon;
  /** `{app address}/fasp`. */
  baseUrl: string;
  close(): Promise<void>;
}

/** Starts the app and the fake Mastodon, registers and confirms, and enables `capabilities`. */
export async function startFaspRig(capabilities: string[] = []): Promise<FaspRig> {
  const faspKey = randomBytes(32);
  const t = await createTestApp({ fasp: { settings: faspSettingsFrom({ RECSVC_FASP_NAME: 'recsvc test' }), faspKey } });
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `${address}/fasp`;
  const mastodon = await FakeMastodon.start();
  const service = new FaspService(t.database.db, faspKey);
  await registerWithServer(service, faspKey, { serverBaseUrl: mastodon.url, name: 'recsvc test', faspBaseUrl: baseUrl });
  expect((await mastodon.confirm()).valid).toBe(true);
  for (const capability of capabilities) expect((await mastodon.setCapability(capability, true)).status).toBe(204);
  return {
    t,
    mastodon,
    baseUrl,
    async close() {
      await t.app.faspFeature?.settled();
      await mastodon.close();
      await t.close();
    },
  };
}

let n = 1000;

export interface AccountFixture {
  host: string;
  name: string;
  /** The account's id at its instance (its users act as `<localId>@<host>`). */
  localId?: string;
  discoverable?: boolean | null;
  indexable?: boolean;
  note?: string;
  displayName?: string;
  followers?: number;
}

/** A status by the account, as its instance sends it. */
export function statusBy(
  account: AccountFixture,
  options: { language?: string; ageHours?: number; visibility?: string } = {},
): StatusInput {
  n += 1;
  const base = makeStatus({ n, author: account.name, ageHours: options.ageHours ?? 2, language: options.language ?? 'en' });
  const uri = `https://${account.host}/users/${account.name}`;
  const flags: Record<string, unknown> = {};
  if (account.discoverable !== null) flags.discoverable = account.discoverable ?? true;
  if (account.indexable !== undefined) flags.indexable = account.indexable;
  return {
    ...base,
    visibility: (options.visibility ?? 'public') as NonNullable<StatusInput['visibility']>,
    uri: `${uri}/statuses/${n}`,
    account: {
      ...base.account,
      id: account.localId ?? `l-${account.name}`,
      uri,
      url: `https://${account.host}/@${account.name}`,
      acct: account.name,
      display_name: account.displayName ?? account.name.toUpperCase(),
      note: account.note ?? `<p>${account.name} posts things</p>`,
      followers_count: account.followers ?? 0,
      ...flags,
    },
  };
}

/** Stores statuses as their accounts' own instances sent them; the service's ids, in order. */
export async function store(t: TestApp, statuses: StatusInput[]): Promise<string[]> {
  const ids: string[] = [];
  for (const status of statuses) {
    const host = new URL(status.account.uri!).host;
    const written = await t.database.db.transaction().execute((trx) => writeInstanceStatuses(trx, host, [status], Date.now()));
    ids.push(written.ids[0]!);
  }
  return ids;
}

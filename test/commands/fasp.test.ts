/**
 * `recsvc fasp register|list|show|remove` as child processes on the server host's database
 * file, with a served app and a fake Mastodon (test/helpers/fake-mastodon-fasp.ts): the keys the
 * command stores (sealed under the key file beside the database) sign the server's answers.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadFaspKey } from '../../server/fasp/fasp-keys.js';
import { faspSettingsFrom } from '../../server/fasp/fasp.settings.js';
import { runCli } from '../helpers/cli.js';
import { FakeMastodon } from '../helpers/fake-mastodon-fasp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { TEST_BACKEND } from '../helpers/test-database.js';

let t: TestApp;
let mastodon: FakeMastodon;
let file: string;
let base: string;

beforeEach(async () => {
  file = join(mkdtempSync(join(tmpdir(), 'recsvc-fasp-')), 'recsvc.db');
  t = await createTestApp({ dbPath: file, fasp: { settings: faspSettingsFrom({}), faspKey: loadFaspKey({ dbPath: file }) } });
  base = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/fasp`;
  mastodon = await FakeMastodon.start();
});
afterEach(async () => {
  await mastodon.close();
  await t.close();
});

describe.skipIf(TEST_BACKEND === 'postgres')('recsvc fasp', () => {
  it('registers, prints the fingerprint the admin compares, lists, shows and removes', async () => {
    const registered = await runCli(['fasp', 'register', mastodon.url, '--base-url', base, '--db', file, '--name', 'recsvc cli']);
    expect(registered.code, registered.stderr).toBe(0);
    expect(mastodon.provider).toMatchObject({ name: 'recsvc cli', baseUrl: base });
    expect(registered.stdout).toContain(mastodon.providerFingerprint());
    expect(registered.stdout).toContain(`${mastodon.url}/admin/fasp/providers/1`);

    expect((await mastodon.confirm()).valid).toBe(true);
    expect((await mastodon.setCapability('trends', true)).status).toBe(204);

    const listed = await runCli(['fasp', 'list', '--json', '--db', file]);
    const servers = JSON.parse(listed.stdout) as { id: string; capabilities: string[]; fingerprint: string }[];
    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({
      id: mastodon.provider!.serverId,
      capabilities: ['trends/0'],
      fingerprint: mastodon.providerFingerprint(),
    });
    expect(JSON.stringify(servers)).not.toMatch(/private/i);

    const shown = await runCli(['fasp', 'show', servers[0]!.id, '--db', file]);
    expect(shown.stdout).toContain(mastodon.providerFingerprint());
    expect(shown.stdout).toContain('trends/0');

    // The debug capability's log is the admin's to read here: the call, its address and body, the callback's status.
    expect((await mastodon.debugCall()).status).toBe(201);
    await t.app.faspFeature!.settled();
    const debug = await runCli(['fasp', 'show', servers[0]!.id, '--json', '--db', file]);
    expect(JSON.parse(debug.stdout)).toMatchObject({
      debugCallbacks: [{ ip: '127.0.0.1', body: '{"hello":"world"}', callbackStatus: 201 }],
    });
    expect((await runCli(['fasp', 'show', servers[0]!.id, '--db', file])).stdout).toMatch(/127\.0\.0\.1 {2}201 {2}\{"hello":"world"\}/);

    const removed = await runCli(['fasp', 'remove', servers[0]!.id, '--db', file]);
    expect(removed.code).toBe(0);
    expect((await mastodon.request('GET', '/provider_info')).status).toBe(401);
    expect((await runCli(['fasp', 'show', servers[0]!.id, '--db', file])).code).toBe(2);
    // Seven child processes, each loading the CLI: slow on a loaded machine.
  }, 120_000);

  it('explains a server without FASP (404) and a missing base URL, exit 2', async () => {
    const noFasp = await runCli(['fasp', 'register', `${mastodon.url}/nothing-here`, '--base-url', base, '--db', file]);
    expect(noFasp.code).toBe(2);
    expect(noFasp.stderr).toContain('EXPERIMENTAL_FEATURES=fasp');
    const noBase = await runCli(['fasp', 'register', mastodon.url, '--db', file], { env: { RECSVC_PUBLIC_URL: undefined } });
    expect(noBase.code).toBe(2);
    expect(noBase.stderr).toContain('--base-url');
  });
});

/**
 * The database tells every instance of each committed change to a user's privacy row
 * (PostgreSQL's notification, PrivacyPolicyService.outsideChange), the writing instance too.
 * That echo of its own write is no outside change, even when it is read before the write's own
 * promise has resolved: taken for one, the privacy feature deleted rows the user's requests
 * wrote after their level was set (the retention test lost rows on PostgreSQL now and then).
 * The echo is delivered here deterministically by a plugin that reads it after the write's
 * statement committed and before the writer's code continues; the write goes through a second
 * handle on the same database, so that the echo's read does not wait for the writer's connection.
 */
import { sql, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPrivacyPolicy, type PrivacyPolicyService } from '../../../server/privacy/privacy-policy.service.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

/** Runs `echo` after every statement, before its result reaches the caller. */
function echoAfterEachStatement(echo: () => Promise<void>): KyselyPlugin {
  return {
    transformQuery: (args: PluginTransformQueryArgs) => args.node,
    transformResult: async (args: PluginTransformResultArgs) => {
      await echo();
      return args.result;
    },
  };
}

let opened: TestDatabase;
let writer: TestDatabase;
let dir: string;
afterEach(async () => {
  await writer.close();
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
});

async function policyWithOutsideLog(): Promise<{ policy: PrivacyPolicyService; outside: string[] }> {
  dir = mkdtempSync(join(tmpdir(), 'recsvc-echo-'));
  opened = await openTestDatabase(join(dir, 'recsvc.db'));
  writer = await openTestDatabase(join(dir, 'recsvc.db'));
  const policy = await createPrivacyPolicy(opened.database.db, { pseudonymKey: 'ab'.repeat(32), defaultLevel: 'limited' });
  const outside: string[] = [];
  policy.onOutsideLevelChange((userId, level, erased) => outside.push(`${userId}:${level}:${erased}`));
  return { policy, outside };
}

describe('the echo of a write of this process to a privacy row', () => {
  it('is not an outside change when it is read before the write returns', async () => {
    const { policy, outside } = await policyWithOutsideLog();
    const echoing = writer.database.db.withPlugin(echoAfterEachStatement(() => policy.outsideChange('alice')));
    await policy.setLevel('alice', 'none', echoing);
    await policy.setLevel('alice', 'full', echoing);
    expect(outside).toEqual([]);
    expect(policy.levelOf('alice')).toBe('full');
  });

  it('is not taken for the echo of a level another process stored', async () => {
    const { policy, outside } = await policyWithOutsideLog();
    await policy.setLevel('bob', 'full');
    await policy.outsideChange('bob');
    // Another process lowers bob's level: a different value than this one wrote.
    await sql`UPDATE privacy_settings SET tracking_level = 'none' WHERE user_id = 'bob'`.execute(writer.database.db);
    await policy.outsideChange('bob');
    // And erases bob: the row is gone.
    await sql`DELETE FROM privacy_settings WHERE user_id = 'bob'`.execute(writer.database.db);
    await policy.outsideChange('bob');
    expect(outside).toEqual(['bob:none:false', 'bob:limited:true']);
  });
});

/**
 * The privacy settings reach the built binary: `recsvc agents run retention` (a child
 * process) purges rows past their user's level with the deployment's pseudonym key (the
 * key file beside the database, made by the first start, found again by the CLI), and a
 * malformed key file or a bad RECSVC_DEFAULT_TRACKING_LEVEL stops it with exit 2 naming them.
 */
import { pseudonymiseStoredIds } from '../../../server/experiments/events/privacy-backfill.js';
import Database from 'better-sqlite3';
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../../server/platform/db/connection.js';
import { migrateToLatest } from '../../../server/platform/db/migrate.js';
import { createPrivacyPolicy } from '../../../server/privacy/privacy-policy.service.js';
import { EXIT } from '../../../src/exit-codes.js';
import { runCli, tempDir } from '../../helpers/cli.js';

const DAY = 86_400_000;
const dir = tempDir();

/** A database with one old and one recent analytics event of `user`, stored by pseudonym under the file's key. */
async function seeded(name: string, user: string): Promise<string> {
  const db = join(dir, name);
  const handle = openSqlite(db);
  await migrateToLatest(handle.db);
  const policy = await createPrivacyPolicy(handle.db, { dbPath: db });
  // As a start of the service would have done first: mark the one-time conversion of raw ids done.
  await pseudonymiseStoredIds(handle.db, policy);
  const pseudonym = policy.pseudonym(user);
  for (const age of [200, 10]) {
    const at = Date.now() - age * DAY;
    await sql`INSERT INTO analytics_events (type, user_id, post_id, session_id, occurred_at_ms, received_at_ms)
      VALUES ('view', ${pseudonym}, 'p1', NULL, ${at}, ${at})`.execute(handle.db);
  }
  policy.close();
  await handle.close();
  return db;
}

/** The user's analytics events left, found by the pseudonym under the key file's key (read after the CLI exited). */
function eventsLeft(db: string, user: string): number {
  const key = Buffer.from(readFileSync(`${db}.pseudonym-key`, 'utf8').trim(), 'hex');
  const pseudonym = createHmac('sha256', key).update(user).digest('hex');
  const sqlite = new Database(db, { readonly: true });
  try {
    return (sqlite.prepare('SELECT count(*) AS n FROM analytics_events WHERE user_id = ?').get(pseudonym) as { n: number }).n;
  } finally {
    sqlite.close();
  }
}

describe('recsvc agents run retention', () => {
  it("purges what the default level does not keep, finding the user's rows by the key file's pseudonym", async () => {
    const db = await seeded('retention.db', 'acc-1@social.example');
    expect(eventsLeft(db, 'acc-1@social.example')).toBe(2);
    const result = await runCli(['agents', 'run', 'retention', '--db', db, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const run = JSON.parse(result.stdout) as { outcome: string; details: Record<string, number> };
    expect(run).toMatchObject({ outcome: 'success', details: { analytics_events: 1 } });
    expect(eventsLeft(db, 'acc-1@social.example')).toBe(1);
  });

  it('a deployment default of full keeps them; a bad default or key file is exit 2 naming it', async () => {
    const db = await seeded('full.db', 'acc-2@social.example');
    const kept = await runCli(['agents', 'run', 'retention', '--db', db, '--json'], { env: { RECSVC_DEFAULT_TRACKING_LEVEL: 'full' } });
    expect(kept.code, kept.stderr).toBe(0);
    expect(eventsLeft(db, 'acc-2@social.example')).toBe(2);
    const badLevel = await runCli(['agents', 'run', 'retention', '--db', db], { env: { RECSVC_DEFAULT_TRACKING_LEVEL: 'most' } });
    expect(badLevel.code).toBe(EXIT.usage);
    expect(badLevel.stderr).toContain('RECSVC_DEFAULT_TRACKING_LEVEL must be one of full, limited, none, got "most"');
    writeFileSync(`${db}.pseudonym-key`, 'garbage\n');
    const badKey = await runCli(['agents', 'run', 'retention', '--db', db]);
    expect(badKey.code).toBe(EXIT.usage);
    expect(badKey.stderr).toContain(`the pseudonym key file ${db}.pseudonym-key is malformed`);
  });
});

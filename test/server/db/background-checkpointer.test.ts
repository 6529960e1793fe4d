import { statSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { startBackgroundCheckpointer } from '../../../server/platform/db/background-checkpointer.js';
import { tempDir } from '../../helpers/cli.js';

// Tests run from sources; the worker thread needs the compiled script (`npm test` builds first).
const workerScript = new URL('../../../dist/server/platform/db/checkpoint.worker.js', import.meta.url);

// Generous: a worker thread loading better-sqlite3 on a loaded CI machine has taken over 5 s
// to start; polling returns as soon as the condition holds, so a quiet run stays fast.
async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return condition();
}

describe('background checkpointer', () => {
  it('copies committed WAL pages into the database file from its worker thread', async () => {
    const path = join(tempDir(), 'wal.db');
    const writer = new SQLite(path);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0'); // the writer never checkpoints on its own
    writer.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const insert = writer.prepare('INSERT INTO t (body) VALUES (?)');
    writer.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run('x'.repeat(1000));
    })();
    const sizeBefore = statSync(path).size;
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(2_000_000);

    const errors: string[] = [];
    const checkpointer = startBackgroundCheckpointer(path, { intervalMs: 20, workerScript, onError: (m) => errors.push(m) });
    expect(await waitFor(() => statSync(path).size > sizeBefore + 2_000_000)).toBe(true);
    await checkpointer.stop();
    await checkpointer.stop(); // idempotent
    expect(errors).toEqual([]);
    expect(writer.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2000 });
    writer.close();
  });

  it('reports a worker that cannot start, and stop still resolves', async () => {
    const errors: string[] = [];
    const checkpointer = startBackgroundCheckpointer(join(tempDir(), 'missing.db'), { workerScript, onError: (m) => errors.push(m) });
    expect(await waitFor(() => errors.length > 0)).toBe(true);
    expect(errors[0]).toMatch(/^background checkpointer stopped: .*(unable to open|does not exist|SQLITE_CANTOPEN)/i);
    await checkpointer.stop();
  });
});

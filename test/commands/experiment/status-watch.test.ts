/**
 * `experiment status --watch` as a child process against a live server: plain frames one per
 * refresh off a terminal (sparklines growing as users arrive), JSON Lines with --json, a redrawn
 * screen with the cursor hidden and restored on Ctrl-C in a pseudo-terminal.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, runCli } from '../../helpers/cli.js';
import type { ServerProcess } from '../../helpers/server-process.js';
import { startSeededExperiment } from '../support/seed-experiment.js';
import { hasScript, terminal } from '../support/terminal.js';

let server: ServerProcess;
let id: number;
let assigned: Map<string, string>;

beforeAll(async () => {
  ({ server, id, assigned } = await startSeededExperiment(120));
}, 60_000);
afterAll(async () => server?.stop());

/** `recsvc ...args` left running, stdout collected; waitFor polls it. */
function watch(args: string[]): {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  waitFor: (test: (out: string) => boolean) => Promise<void>;
  exited: Promise<number | null>;
} {
  const env: NodeJS.ProcessEnv = { ...process.env, ...server.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env, stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    out: () => out,
    err: () => err,
    exited,
    async waitFor(test) {
      const start = Date.now();
      while (!test(out)) {
        if (Date.now() - start > 20_000 || child.exitCode !== null) throw new Error(`gave up waiting; stdout:\n${out}\nstderr:\n${err}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}

const frames = (out: string): string[] => out.split('\n\n').filter((frame) => frame.startsWith('Experiment '));

/** Enrols `count` more users in `variant` (as the serving path records them). */
function enrol(variant: string, count: number): void {
  const db = new Database(server.dbPath);
  db.pragma('busy_timeout = 5000');
  const insert = db.prepare('INSERT INTO experiment_assignments (experiment_id, user_id, variant, assigned_at_ms) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < count; i++) insert.run(id, `late-${variant}-${i}`, variant, Date.now());
  })();
  db.close();
}

describe('experiment status --watch', () => {
  it('prints a plain frame per refresh; the users sparkline rises when users arrive; Ctrl-C exits 130', async () => {
    const control = [...assigned.values()].filter((v) => v === 'control').length;
    const run = watch(['experiment', 'status', String(id), '--watch', '--interval', '0.3']);
    await run.waitFor((out) => frames(out).length >= 2);
    enrol('control', 40);
    await run.waitFor((out) => frames(out).some((frame) => frame.includes((control + 40).toLocaleString('en-US'))));
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.err()).toContain('recsvc: interrupted');
    const all = frames(run.out());
    expect(run.out()).not.toContain('\u001b');
    const last = all[all.length - 1] as string;
    expect(last).toMatch(
      new RegExp(
        `^Experiment ${id} "[^"]+": ACTIVE — \\d\\d:\\d\\d:\\d\\d UTC, every 0\\.3 s, ${all.length} refreshes \\(Ctrl-C to stop\\)`,
      ),
    );
    // control's users over the refreshes: flat, then up by 40 — the sparkline starts low and ends at the top.
    const controlRow = last.split('\n').find((line) => line.startsWith('control ')) as string;
    expect(controlRow).toMatch(new RegExp(`^control\\s+${(control + 40).toLocaleString('en-US')}\\s.*\\s▁+█+$`));
    const recencyRow = last.split('\n').find((line) => line.startsWith('recency ')) as string;
    expect(recencyRow).toMatch(/\s▄+$/);
    expect(last).toMatch(/^click_through_rate recency vs control: .*difference .*p = .*\s[▁▂▃▄▅▆▇█]+$/m);
    expect(last).toMatch(/^Sample ratio: /m);
  });

  it('--json prints one JSON line per refresh', async () => {
    const run = watch(['experiment', 'status', String(id), '--watch', '--interval', '0.2', '--json']);
    await run.waitFor((out) => out.split('\n').filter((line) => line !== '').length >= 2);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    const lines = run
      .out()
      .split('\n')
      .filter((line) => line !== '')
      .map(
        (line) =>
          JSON.parse(line) as {
            id: number;
            at: string;
            variants: Array<{ name: string }>;
            primary_metric: string;
            comparisons: Array<{ metric: string }>;
          },
      );
    for (const line of lines) {
      expect(line.id).toBe(id);
      expect(Date.parse(line.at)).not.toBeNaN();
      expect(line.variants.map((v) => v.name)).toEqual(['control', 'recency']);
      expect(line.comparisons.map((c) => c.metric)).toEqual([line.primary_metric]);
    }
  });

  it.each([
    [['--interval', '1'], 2, /--interval goes with --watch/],
    [['--watch', '--interval', '0'], 2, /expected a number of seconds, at least 0\.1/],
  ])('rejects %j with exit %i', async (flags, code, message) => {
    const result = await runCli(['experiment', 'status', String(id), ...flags], { env: server.env });
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it('stops with exit 3 when the first refresh fails (no such experiment)', async () => {
    const result = await runCli(['experiment', 'status', '999', '--watch', '--interval', '0.2'], { env: server.env });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
  });

  it.skipIf(!hasScript)('on a terminal redraws in place with the cursor hidden, and shows it again on Ctrl-C', async () => {
    const session = terminal(`${process.execPath} ${BIN} experiment status ${id} --watch --interval 0.3`, server.env);
    try {
      await session.waitFor('refreshes (Ctrl-C to stop)', 20_000);
      await session.waitFor('refreshes (Ctrl-C to stop)', 20_000);
      session.type('\u0003');
      expect(await session.exited).toBe(130);
      const screen = session.output();
      expect(screen.startsWith('\u001b[?25l')).toBe(true);
      expect(screen.indexOf('\u001b[?25h')).toBeGreaterThan(screen.lastIndexOf('refreshes (Ctrl-C to stop)'));
      // Each frame starts at the top-left corner instead of scrolling.
      expect(screen.split('\u001b[HExperiment ').length).toBeGreaterThan(2);
    } finally {
      session.close();
    }
  });
});

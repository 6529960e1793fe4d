/** `recsvc selftest` as a child process: within bounds (exit 0), out of bounds (exit 1), bad flags (exit 2). */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';

interface SelftestJson {
  seed: number;
  experiments: number;
  pass: boolean;
  false_positive_rates: { method: string; looks: number; count: number; trials: number; interval: [number, number]; pass: boolean }[];
  srm_false_alarms: { count: number; trials: number; pass: boolean };
  uniformity: { name: string; ids: number; df: number; p_value: number; pass: boolean }[];
}

const SMALL = ['--experiments', '200', '--ids', '20000'];

describe('recsvc selftest', () => {
  it('reports every figure within bounds with --json and exits 0', async () => {
    const result = await runCli(['selftest', ...SMALL, '--seed', '5', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as SelftestJson;
    expect(report).toMatchObject({ seed: 5, experiments: 200, pass: true });
    expect(report.false_positive_rates.map((r) => [r.method, r.looks, r.trials, r.pass])).toEqual([
      ['fixed', 1, 200, true],
      ['sequential', 14, 200, true],
    ]);
    for (const rate of report.false_positive_rates) {
      expect(rate.interval[0]).toBeLessThanOrEqual(rate.count / rate.trials);
      expect(rate.interval[1]).toBeGreaterThanOrEqual(rate.count / rate.trials);
    }
    expect(report.srm_false_alarms).toMatchObject({ trials: 200, pass: true });
    expect(report.uniformity.map((u) => [u.ids, u.df, u.pass])).toEqual([
      [20000, 99, true],
      [20000, 99, true],
    ]);
  });

  it('prints the same report for the same seed', async () => {
    const [a, b] = await Promise.all([runCli(['selftest', ...SMALL, '--seed', '9']), runCli(['selftest', ...SMALL, '--seed', '9'])]);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toMatch(/^false positives, fixed \(1 read\)\s+\d+\/200\s/m);
    expect(a.stdout).toContain('all figures within bounds');
  });

  it('exits 1 naming the figure when the fixed horizon is read daily for 14 days (peeking)', async () => {
    const result = await runCli([
      'selftest',
      '--experiments',
      '400',
      '--ids',
      '2000',
      '--looks',
      '14',
      '--min-sample-size',
      '20',
      '--json',
    ]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as SelftestJson;
    expect(report.pass).toBe(false);
    expect(report.false_positive_rates.find((r) => r.method === 'fixed')).toMatchObject({ looks: 14, pass: false });
    expect(report.false_positive_rates.find((r) => r.method === 'sequential')?.pass).toBe(true);
    expect(result.stderr).toMatch(/^recsvc: selftest: out of bounds: false positives, fixed \(14 reads\) [\d.]+% \[/m);
  });

  it.each([
    [['--alpha', '2'], /--alpha/],
    [['--experiments', '0'], /--experiments/],
    [['--seed', '-1'], /--seed/],
    [['--users', '100'], /--users: the smallest variant expects 50 users/],
    [['--allocations', 'a=100'], /--allocations/],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await runCli(['selftest', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('stops at Ctrl-C with exit 130 in the middle of a long run (it yields between experiments)', async () => {
    const child = spawn(process.execPath, [BIN, 'selftest', '--experiments', '1000000'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (code, signal) => resolve([code, signal])),
    );
    // A million experiments take minutes; two seconds in, the command is well inside its loop.
    await sleep(2000);
    child.kill('SIGINT');
    expect(await exited).toEqual([130, null]);
    expect(stderr).toBe('recsvc: interrupted\n');
  });
});

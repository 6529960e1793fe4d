/** `recsvc experiment diff` as a child process against a real `recsvc serve`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketOf } from '../../src/experiments/assignment.js';
import { runCli } from '../helpers/cli.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { startSeededExperiment } from './support/seed-experiment.js';

interface DiffJson {
  buckets: { start: number; end: number; from: string; to: string }[];
  buckets_moving: number;
  moves: { from: string; to: string; users: number }[];
  users_assigned: number;
  users_moving: number;
}

describe('recsvc experiment diff (a real server)', () => {
  let server: ServerProcess;
  let id: number;
  let assigned: Map<string, string>;

  beforeAll(async () => {
    ({ server, id, assigned } = await startSeededExperiment(200));
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Users recorded in control whose bucket lies in [40, 50): what 40/60 would move. */
  const expectedMoving = () => [...assigned].filter(([user, variant]) => variant === 'control' && bucketOf(user, id) >= 40).length;

  it('prints the moving bucket ranges and users per (from, to) as JSON, exit 0', async () => {
    const result = await runCli(['experiment', 'diff', String(id), '--allocations', 'control=40,recency=60', '--json'], {
      env: server.env,
    });
    expect(result.code, result.stderr).toBe(0);
    const diff = JSON.parse(result.stdout) as DiffJson;
    expect(expectedMoving()).toBeGreaterThan(0);
    expect(diff).toEqual({
      buckets: [{ start: 40, end: 50, from: 'control', to: 'recency' }],
      buckets_moving: 10,
      moves: [{ from: 'control', to: 'recency', users: expectedMoving() }],
      users_assigned: 200,
      users_moving: expectedMoving(),
    });
  });

  it('prints tables a person can read, in the flag order or not', async () => {
    const result = await runCli(['experiment', 'diff', String(id), '-a', 'recency=60,control=40'], { env: server.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Buckets changing variant: 10 of 100');
    expect(result.stdout).toMatch(/40-49\s+control\s+recency/);
    expect(result.stdout).toContain(`Assigned users moving: ${expectedMoving()} of 200`);
    expect(result.stdout).toMatch(new RegExp(`control\\s+recency\\s+${expectedMoving()}`));
  });

  it('reports that nothing moves for the current allocations', async () => {
    const result = await runCli(['experiment', 'diff', String(id), '-a', 'control=50,recency=50'], { env: server.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('No bucket changes variant.');
    expect(result.stdout).toContain('Assigned users moving: 0 of 200');
  });

  it.each([
    ['control=40,recency=50', /add up to 100/],
    ['control=40;recency=60', /traffic allocation must be a number/],
    ['control=100', /at least two variants/],
    ['control=100', /at least two variants/],
    ['control=40,other=60', /^recsvc: --allocations: variant "other" is not one of this experiment's variants \(control, recency\)/],
    ['control=40,recency=30,extra=30', /"extra" is not one of this experiment's variants/],
  ])('exits 2 with one line for --allocations %s', async (allocations, message) => {
    const result = await runCli(['experiment', 'diff', String(id), '--allocations', allocations], { env: server.env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });
});

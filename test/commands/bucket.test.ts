import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jsonLines, REPO_ROOT, runCli } from '../helpers/cli.js';

interface BucketCase {
  user_id: string;
  experiment_id: string;
  md5: string;
  hex8: string;
  integer: number;
  bucket: number;
}
// Computed with coreutils md5sum, independently of our TypeScript (see its provenance).
const reference = JSON.parse(readFileSync(`${REPO_ROOT}test/fixtures/stats/assignment-buckets.json`, 'utf8')) as { cases: BucketCase[] };

describe('recsvc bucket', () => {
  it.each(reference.cases.slice(0, 6))('gives the md5sum reference bucket for $user_id in experiment $experiment_id', async (ref) => {
    const result = await runCli(['bucket', ref.user_id, '--experiment', ref.experiment_id, '--json', '--explain']);
    expect(result.code).toBe(0);
    const [line] = jsonLines(result.stdout);
    expect(line).toMatchObject({
      user_id: ref.user_id,
      experiment_id: Number(ref.experiment_id),
      bucket: ref.bucket,
      variant: null,
      md5: ref.md5,
      hex8: ref.hex8,
      integer: ref.integer,
    });
  });

  it('names the owning variant from --allocations by consecutive ranges (40/20/20/20)', async () => {
    const users = reference.cases.map((c) => c.user_id);
    const result = await runCli(['bucket', '-', '-e', '1', '--allocations', 'a=40,b=20,c=20,d=20', '--json'], { input: users.join('\n') });
    expect(result.code).toBe(0);
    const lines = jsonLines<{ user_id: string; bucket: number; variant: string }>(result.stdout);
    expect(lines.map((l) => l.user_id)).toEqual(users);
    for (const line of lines) {
      const expected = line.bucket < 40 ? 'a' : line.bucket < 60 ? 'b' : line.bucket < 80 ? 'c' : 'd';
      expect(line.variant, `${line.user_id} bucket ${line.bucket}`).toBe(expected);
    }
  });

  it('buckets thousands of stdin users exactly like an independent md5 computation, one line each', async () => {
    const users = Array.from({ length: 5000 }, (_, i) => `user-${i * 7919}`);
    const result = await runCli(['bucket', '-', '-e', '42', '-a', 'control=50,treatment=30,canary=20'], {
      input: `${users.join('\r\n')}\r\n\n`,
    });
    expect(result.code).toBe(0);
    const rows = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows).toHaveLength(users.length);
    rows.forEach(([user, bucket, variant], i) => {
      const expectedBucket = Number.parseInt(createHash('md5').update(`${users[i]}_42`).digest('hex').slice(0, 8), 16) % 100;
      expect(user).toBe(users[i]);
      expect(Number(bucket)).toBe(expectedBucket);
      expect(variant).toBe(expectedBucket < 50 ? 'control' : expectedBucket < 80 ? 'treatment' : 'canary');
    });
  });

  it('explains every step in human form', async () => {
    const result = await runCli(['bucket', 'alice', '-e', '1', '-a', 'control=50,treatment=50', '--explain']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"alice_1"');
    expect(result.stdout).toContain('1e04037f55869b40668a41cbd6e8fa8d');
    expect(result.stdout).toContain('503579519 mod 100 = 19');
    expect(result.stdout).toMatch(/variant\s+control \(owns buckets 0-49\)/);
  });

  it('marks users outside --traffic as not enrolled', async () => {
    const result = await runCli(['bucket', '-', '-e', '1', '-a', 'a=50,b=50', '--traffic', '1', '--json'], {
      input: Array.from({ length: 300 }, (_, i) => `u${i}`).join('\n'),
    });
    expect(result.code).toBe(0);
    const lines = jsonLines<{ variant: string | null }>(result.stdout);
    const enrolled = lines.filter((l) => l.variant !== null).length;
    expect(enrolled).toBeGreaterThan(0);
    expect(enrolled).toBeLessThan(20);
  });

  it.each([
    [['bucket', 'u1', '-e', '1', '-a', 'a=50,b=40'], /add up to 100/],
    [['bucket', 'u1', '-e', '1', '-a', 'a=50'], /at least two variants/],
    [['bucket', 'u1', '-e', '1', '-a', 'a=50,a=50'], /listed twice/],
    [['bucket', 'u1', '-e', '1', '-a', 'a=fifty,b=50'], /must be a number/],
    [['bucket', 'u1', '-e', 'seven'], /positive integer/],
    [['bucket', 'u1'], /--experiment/],
    [['bucket', 'u1', '-e', '1', '--traffic', '50'], /--traffic needs --allocations/],
    [['bucket', 'u1', '-e', '1', '--server', 'ftp://x'], /http/],
  ])('exits 2 on bad input %j', async (args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 3 with one line when the server cannot be reached', async () => {
    const result = await runCli(['bucket', 'u1', '-e', '1'], { env: { RECSVC_SERVER: 'http://127.0.0.1:9' } });
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/cannot reach the server at http:\/\/127\.0\.0\.1:9/);
  });
});

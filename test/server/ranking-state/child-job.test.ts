/**
 * Jobs in child processes (server/ranking-state/child-job.ts): the child gets the job and answers
 * it, at a lower CPU priority than the process that started it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CHILD_JOB_NICENESS, runChildJob } from '../../../server/ranking-state/child-job.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('a job in a child process', () => {
  it('runs at a lower CPU priority than the serving process (background work leaves the core to requests)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'recsvc-child-job-'));
    const script = join(dir, 'niceness.mjs');
    // A child that answers the job with its own niceness.
    writeFileSync(
      script,
      "import { getPriority } from 'node:os';\n" +
        "process.once('message', (job) => process.send({ job, niceness: getPriority() }, () => process.exit(0)));\n",
    );
    const answer = await runChildJob<{ job: unknown; niceness: number }>(
      pathToFileURL(script),
      { ask: 'niceness' },
      new AbortController().signal,
      'the test job',
    );
    expect(answer.job).toEqual({ ask: 'niceness' });
    expect(answer.niceness).toBe(Math.min(19, Math.max(getPriority(), CHILD_JOB_NICENESS)));
  });
});

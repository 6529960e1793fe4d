/**
 * The child process of a background job (the ranking fit, the item model's build) runs at a
 * lower CPU priority than the serving process, so that on a busy machine requests come first.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BACKGROUND_NICE, runChildJob } from '../../../server/ranking-state/child-job.js';

/** A child script that answers the job with its own nice value and the job it got. */
function priorityScript(): URL {
  const path = join(mkdtempSync(join(tmpdir(), 'recsvc-child-job-')), 'answer-priority.mjs');
  writeFileSync(
    path,
    "import { getPriority } from 'node:os';\nprocess.once('message', (job) => process.send({ nice: getPriority(), job }, () => process.exit(0)));\n",
  );
  return pathToFileURL(path);
}

describe('a background job in a child process', () => {
  it('runs at BACKGROUND_NICE, below the serving process, and answers the job it was sent', async () => {
    // Started from a serving process at nice 0 (npm test), the child runs at 10; never above its parent.
    const expected = Math.max(getPriority(), BACKGROUND_NICE);
    const answer = await runChildJob<{ nice: number; job: unknown }>(
      priorityScript(),
      { n: 1 },
      new AbortController().signal,
      'the test job',
    );
    expect(answer).toEqual({ nice: expected, job: { n: 1 } });
  });
});

/** `gates check --summary-md FILE`: the Markdown summary appended to FILE, as GitHub's step summary expects. */
import { appendFile, stat } from 'node:fs/promises';
import { STEP_SUMMARY_MAX_BYTES, gateSummaryMarkdown } from '../../src/experiments/gates/gate-summary-md.js';
import { usageError } from '../support/cli-error.js';
import { warn } from '../support/output.js';
import type { GatesReport } from '../support/gates-report.js';

/**
 * Appends the summary (several checks in one CI step each add their experiment's table), keeping
 * the whole file under 1 MiB: rows beyond what is left are replaced by a note (a file already
 * nearly full gets nothing and a warning).
 */
export async function appendSummaryMd(path: string, report: GatesReport): Promise<void> {
  const fail = (error: unknown) =>
    usageError(`--summary-md ${path}: cannot write the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  let existing = 0;
  try {
    existing = (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fail(error);
  }
  const separator = existing > 0 ? '\n' : '';
  const budget = STEP_SUMMARY_MAX_BYTES - existing - separator.length;
  if (budget < 1024) {
    // The gates' verdict (the exit code) matters more than the summary: say so, do not fail the job.
    warn(`--summary-md ${path}: not written, the file already holds ${existing} bytes and a step summary must stay under 1 MiB`);
    return;
  }
  try {
    await appendFile(path, `${separator}${gateSummaryMarkdown(report, budget)}`);
  } catch (error) {
    throw fail(error);
  }
}

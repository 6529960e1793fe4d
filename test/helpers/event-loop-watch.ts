/**
 * A setup file of the unit and PostgreSQL suites: says on stderr when this test worker's event
 * loop was held for a long time, naming the test file and the test it was held in. Vitest's
 * worker answers its runner over an RPC that times out after 60 s without a turn ("Timeout
 * calling onTaskUpdate"): the run then passes every test and still exits 1, and its log does
 * not say where. `.ci/run` repeats these lines at the end of its output.
 *
 * Its clock and timer are taken before any test can fake them (`vi.useFakeTimers`).
 */
import { performance } from 'node:perf_hooks';
import { beforeEach, expect } from 'vitest';

/** A hold this long is reported (a quarter of the RPC's timeout). */
const REPORT_AFTER_MS = 15_000;

const now = performance.now.bind(performance);
const every = globalThis.setInterval;
let last = now();
let current = 'loading the file';
/** The test running at the last turn and those started since: the hold was in one of them. */
let since = [current];

every(() => {
  const at = now();
  if (at - last > REPORT_AFTER_MS) {
    const file = expect.getState().testPath ?? 'a test file';
    const tests = since.map((name) => `"${name}"`).join(' or ');
    process.stderr.write(`[event-loop-watch] ${file}: the event loop was held ${((at - last) / 1000).toFixed(1)} s, in ${tests}\n`);
  }
  last = at;
  since = [current];
}, 250).unref();

beforeEach(() => {
  current = expect.getState().currentTestName ?? current;
  since.push(current);
});

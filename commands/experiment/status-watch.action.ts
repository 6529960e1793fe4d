/**
 * The loop behind `experiment status --watch`: every interval, the status report and the analysis
 * (the experiment's method, or --method), drawn as one frame. On a terminal the frame is redrawn in
 * place with the cursor hidden (restored on exit, Ctrl-C included: run.ts exits 130); elsewhere each
 * frame is printed in turn as plain lines, and with --json each refresh is one JSON line. The
 * analytics routes are rate limited (20 a minute, 200 an hour per token by default): the pace
 * follows the server's X-RateLimit-* headers and Retry-After (runStatusWatch).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { AnalysisResult } from '../../src/experiments/stats/analysis.js';
import { CodedError } from '../../src/errors.js';
import { ExperimentAnalysisSchema } from '../../src/experiments/experiment-analysis.schema.js';
import { ExperimentStatusSchema } from '../../src/experiments/experiment-response.schema.js';
import { pacedDelay, type RateLimitState } from '../../src/rate-limit/pacing.js';
import { ApiClient } from '../support/api-client.js';
import { ApiError, usageError } from '../support/cli-error.js';
import { formatCount, warn } from '../support/output.js';
import type { ServerFlags } from '../support/server-options.js';
import { methodQuery, type MethodFlags } from './analyze-method.js';
import { DEFAULT_WATCH_INTERVAL_SECONDS, REQUESTS_PER_REFRESH, type WatchFlags } from './status-watch.js';
import { WATCH_HISTORY, renderWatchFrame, type WatchSample } from './status-watch.view.js';

export interface WatchOptions extends ServerFlags, MethodFlags, WatchFlags {
  json?: boolean;
}

const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';
const HOME = '\u001b[H';
const CLEAR_SCREEN = '\u001b[2J';
const CLEAR_LINE_END = '\u001b[K';
const CLEAR_BELOW = '\u001b[J';

async function fetchSample(client: ApiClient, id: number, options: WatchOptions): Promise<WatchSample> {
  const query = methodQuery(options.method);
  const [status, analysis] = await Promise.all([
    client.get(ApiClient.experimentsPath(id, 'status'), ExperimentStatusSchema),
    client.get(`${ApiClient.experimentsPath(id, 'analysis')}${query === '' ? '' : `?${query}`}`, ExperimentAnalysisSchema),
  ]);
  // The wire form of AnalysisResult (experiment-analysis.schema.test.ts keeps the two equal).
  return { at: new Date(), status, analysis: analysis as AnalysisResult };
}

function jsonLine(sample: WatchSample): string {
  const { status, analysis } = sample;
  return JSON.stringify({
    at: sample.at.toISOString(),
    ...status,
    analysis_method: analysis.analysis_method,
    primary_metric: analysis.primary_metric,
    comparisons: analysis.comparisons.filter((c) => c.metric === analysis.primary_metric),
  });
}

/** 429 (rate limited) or 503 (overloaded, restarting): the server asked to wait, the seconds it said (or the interval). */
function askedToWait(error: unknown, intervalSeconds: number): number | undefined {
  if (!(error instanceof ApiError) || (error.status !== 429 && error.status !== 503)) return undefined;
  return Math.max(intervalSeconds, error.retryAfter ?? intervalSeconds);
}

/**
 * Refreshes until interrupted, every interval, or later when the server's rate-limit headers
 * say the window's requests would not last until it resets at that pace (pacedDelay). Asked to
 * wait (429, 503), it waits the server's Retry-After and says so, then carries on. The first
 * refresh's other errors end the command (exit 3); later ones are shown and retried.
 */
export async function runStatusWatch(id: number, options: WatchOptions): Promise<void> {
  if (options.watch !== true) throw usageError('--interval goes with --watch');
  const intervalSeconds = options.interval ?? DEFAULT_WATCH_INTERVAL_SECONDS;
  const client = new ApiClient(options);
  const redraw = Boolean(process.stdout.isTTY) && options.json !== true;
  const history: WatchSample[] = [];
  if (redraw) {
    process.stdout.write(`${HIDE_CURSOR}${CLEAR_SCREEN}`);
    process.once('exit', () => process.stdout.write(SHOW_CURSOR));
  }
  for (;;) {
    let error: string | undefined;
    let wait: WaitReason | undefined;
    let delaySeconds = intervalSeconds;
    let fresh = false;
    try {
      history.push(await fetchSample(client, id, options));
      fresh = true;
      if (history.length > WATCH_HISTORY) history.shift();
      delaySeconds = pacedDelay(intervalSeconds, client.rateLimit, REQUESTS_PER_REFRESH, Date.now());
      if (delaySeconds > intervalSeconds && client.rateLimit !== undefined) wait = { seconds: delaySeconds, rateLimit: client.rateLimit };
    } catch (caught) {
      const asked = askedToWait(caught, intervalSeconds);
      if (asked === undefined && (history.length === 0 || !(caught instanceof CodedError))) throw caught;
      if (asked !== undefined) {
        delaySeconds = asked;
        wait = { seconds: asked, askedBy: (caught as ApiError).status };
      } else error = (caught as CodedError).message;
    }
    const latest = history[history.length - 1];
    if (latest === undefined || options.json) {
      // Nothing to draw yet, or JSON Lines on stdout: the wait goes to stderr.
      if (latest !== undefined && fresh) process.stdout.write(`${jsonLine(latest)}\n`);
      if (wait !== undefined) warn(waitLine(wait));
      else if (error !== undefined) warn(`refresh failed: ${error}`);
    } else {
      const frame = renderWatchFrame(history, {
        intervalSeconds,
        ...(error === undefined ? {} : { error }),
        ...(wait === undefined ? {} : { wait: waitLine(wait) }),
      });
      if (redraw) process.stdout.write(`${HOME}${frame.split('\n').join(`${CLEAR_LINE_END}\n`)}${CLEAR_LINE_END}\n${CLEAR_BELOW}`);
      else process.stdout.write(`${frame}\n\n`);
    }
    await delay(delaySeconds * 1000);
  }
}

/** Why the next refresh comes later than the interval: the server asked (429, 503), or its window's requests are running out. */
interface WaitReason {
  seconds: number;
  askedBy?: number;
  rateLimit?: RateLimitState;
}

function waitLine(wait: WaitReason): string {
  const seconds = `${formatCount(wait.seconds, 1)} s`;
  if (wait.askedBy !== undefined) {
    const why = wait.askedBy === 429 ? 'rate limited (429)' : 'server unavailable (503)';
    return `${why}: next refresh in ${seconds}, as the server asked (Retry-After)`;
  }
  const { remaining, limit, resetAtSeconds } = wait.rateLimit as RateLimitState;
  const reset = new Date(resetAtSeconds * 1000).toISOString().slice(11, 19);
  return `next refresh in ${seconds}: ${remaining} of ${limit} requests left until ${reset} UTC (rate limit)`;
}

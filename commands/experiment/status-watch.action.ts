/**
 * The loop behind `experiment status --watch`: every interval, the status report and the analysis
 * (the experiment's method, or --method), drawn as one frame. On a terminal the frame is redrawn in
 * place with the cursor hidden (restored on exit, Ctrl-C included: run.ts exits 130); elsewhere each
 * frame is printed in turn as plain lines, and with --json each refresh is one JSON line.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { AnalysisResult } from '../../src/experiments/stats/analysis.js';
import { CodedError } from '../../src/errors.js';
import { ExperimentAnalysisSchema } from '../../src/experiments/experiment-analysis.schema.js';
import { ExperimentStatusSchema } from '../../src/experiments/experiment-response.schema.js';
import { ApiClient } from '../support/api-client.js';
import { usageError } from '../support/cli-error.js';
import type { ServerFlags } from '../support/server-options.js';
import { methodQuery, type MethodFlags } from './analyze-method.js';
import { DEFAULT_WATCH_INTERVAL_SECONDS, type WatchFlags } from './status-watch.js';
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

/** Refreshes until interrupted. The first refresh's error ends the command (exit 3); later ones are shown and retried. */
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
    try {
      history.push(await fetchSample(client, id, options));
      if (history.length > WATCH_HISTORY) history.shift();
    } catch (caught) {
      if (history.length === 0 || !(caught instanceof CodedError)) throw caught;
      error = caught.message;
    }
    const latest = history[history.length - 1] as WatchSample;
    if (options.json) {
      if (error === undefined) process.stdout.write(`${jsonLine(latest)}\n`);
    } else {
      const frame = renderWatchFrame(history, { intervalSeconds, ...(error === undefined ? {} : { error }) });
      if (redraw) process.stdout.write(`${HOME}${frame.split('\n').join(`${CLEAR_LINE_END}\n`)}${CLEAR_LINE_END}\n${CLEAR_BELOW}`);
      else process.stdout.write(`${frame}\n\n`);
    }
    await delay(intervalSeconds * 1000);
  }
}

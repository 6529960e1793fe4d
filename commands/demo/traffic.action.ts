/**
 * The work behind `recsvc demo traffic`: simulated users user1 … userN visit the running
 * server through its public API, as a client would. Each visit: GET recommendations (the
 * server assigns the user and records an impression per post it serves), then one batch of
 * client events (session start, clicks, session end), favourites through the interactions
 * API, and sometimes feedback. Whom the server assigned where is recomputed with the same
 * rule (src/experiments/assignment.ts), so a treatment user clicks with the planted lift.
 */
import { Type } from '@sinclair/typebox';
import { createAssigner } from '../../src/experiments/assignment.js';
import { ExperimentSchema, type Experiment, type Variant } from '../../src/experiments/experiment-response.schema.js';
import { POSTS_PER_VISIT, clickProbability, simulateVisit, userRandom, type VisitModel } from '../../src/experiments/simulated-visit.js';
import { ApiClient } from '../support/api-client.js';
import { ApiError, CliError, usageError } from '../support/cli-error.js';
import { EXIT } from '../../src/exit-codes.js';
import { parseFlag, parseShare } from '../support/options.js';
import { waitingAsAsked } from '../support/server-waits.js';
import { printJson, printLine, progressDone, throttledProgress, warn } from '../support/output.js';
import { openIdentities, type TrafficIdentities } from './traffic-identities.js';
import type { TrafficOptions } from './traffic.options.js';
import { newTally, summaryLines, toSummary, type RunTally, type TrafficSummary } from './traffic.view.js';

const ShownSchema = Type.Array(Type.Object({ id: Type.String() }));
const CreatedSchema = Type.Object({ id: Type.String() });
/** What the run reads of `POST /api/v1/analytics/events`'s result. */
const JudgedSchema = Type.Object({
  accepted: Type.Integer(),
  rejected: Type.Integer(),
  rejected_by_reason: Type.Record(Type.String(), Type.Integer()),
});

/** Reads the experiment, simulates the community until --users are done or --duration is up, prints the summary. */
export async function runTraffic(options: TrafficOptions): Promise<void> {
  const model = parseModel(options);
  const admin = new ApiClient(options);
  // The admin token's analytics limit (20 a minute) is shared with the tour's other commands: wait when asked.
  const experiment = await waitingAsAsked(() => admin.get(ApiClient.experimentsPath(options.experiment), ExperimentSchema));
  checkRunnable(experiment, await waitingAsAsked(() => admin.getAll(ApiClient.experimentsPath(), ExperimentSchema)));
  const userIds = Array.from({ length: options.users }, (_, i) => `user${i + 1}`);
  const identities = await openIdentities(options, userIds);
  let summary: TrafficSummary;
  try {
    summary = await simulate(experiment, model, options, identities);
  } finally {
    progressDone();
    await identities.close();
  }
  if (summary.users_simulated > 0 && [...summary.variants, summary.not_enrolled].every((row) => row.impressions === 0))
    warn('no recommendations were served, so nothing was clicked: does the server have posts? (start it with --demo)');
  if (options.json) printJson(summary);
  else printLine(summaryLines(summary).join('\n'));
}

/** --ctr and --lift, checked together: the treatment's click probability must stay a probability. */
export function parseModel(options: Pick<TrafficOptions, 'ctr' | 'lift'>): VisitModel {
  const ctr = parseFlag('--ctr', options.ctr, parseShare);
  const lift = parseFlag('--lift', options.lift, parseLift);
  if (ctr * (1 + lift) >= 1) {
    throw usageError(`--lift: a click probability of ${ctr} raised by ${formatPercent(lift)} is not below 1: lower --ctr or --lift`);
  }
  return { ctr, lift };
}

/** A relative lift in percent of the control's click probability: `10%`, `-5%`, `0` (the % is optional), above -100%. */
export function parseLift(text: string): number {
  const trimmed = text.trim().replace(/%$/, '');
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(value) || value <= -100) {
    throw new Error(`expected a percentage above -100, like 10%, -5% or 0 (got "${text}")`);
  }
  return value / 100;
}

/**
 * Only an ACTIVE A/B experiment, alone: a user is enrolled in one open experiment at a time (the
 * oldest that admits them, or the one they are in), so with another one open the simulation
 * could not tell whose users it drives and the planted effect would land elsewhere.
 */
function checkRunnable(experiment: Experiment, all: readonly Experiment[]): void {
  if (experiment.type === 'interleaving') {
    throw usageError(`experiment ${experiment.id} is an interleaving experiment: demo traffic fills A/B experiments`);
  }
  if (experiment.status !== 'ACTIVE') {
    const fix =
      experiment.status === 'COMPLETED' ? 'create and start a new one' : `start it first: recsvc experiment start ${experiment.id}`;
    throw usageError(`experiment ${experiment.id} is ${experiment.status}, so nobody is assigned to it: ${fix}`);
  }
  const other = all.find((e) => e.id !== experiment.id && (e.status === 'ACTIVE' || e.status === 'PAUSED'));
  if (other !== undefined) {
    throw usageError(
      `experiment ${other.id} "${other.name}" is ${other.status} too: a user is enrolled in one open experiment at a time, ` +
        `so simulated users could land there and the planted lift would not be known; stop it first: recsvc experiment stop ${other.id}`,
    );
  }
}

async function simulate(
  experiment: Experiment,
  model: VisitModel,
  options: TrafficOptions,
  identities: TrafficIdentities,
): Promise<TrafficSummary> {
  const assign = createAssigner(experiment.id, experiment.variants, experiment.traffic_percentage);
  const tally = newTally(experiment, model, options, identities.source);
  const startedMs = Date.now();
  const deadlineMs = startedMs + options.duration * 1000;
  // Session ids unique to this run, so a second run on the same users starts new sessions.
  const run = startedMs.toString(36);
  let next = 1;
  let failure: Error | undefined;
  const report = throttledProgress(() => progressLine(tally, options, deadlineMs));
  const worker = async (): Promise<void> => {
    while (failure === undefined && next <= options.users && Date.now() < deadlineMs) {
      const userNumber = next++;
      try {
        await visit(userNumber, assign(`user${userNumber}`).variant, run);
      } catch (error) {
        failure ??= error instanceof Error ? error : new Error(String(error));
      }
      report();
    }
  };
  const visit = async (userNumber: number, variant: Variant | undefined, runId: string): Promise<void> => {
    const userId = `user${userNumber}`;
    const client = new ApiClient({ ...options, token: identities.tokenFor(userId) ?? '' });
    const send = <T>(call: () => Promise<T>) => withRetries(call, tally, identities);
    const query = `user_id=${encodeURIComponent(userId)}&limit=${POSTS_PER_VISIT}`;
    const shown = await send(() => client.getBare(`/api/v1/recommendations?${query}`, ShownSchema));
    const probability = clickProbability(model, variant !== undefined && !variant.is_control);
    const done = simulateVisit(
      userRandom(options.seed, userNumber),
      shown.map((post) => post.id),
      probability,
    );
    const endMs = Date.now();
    const sessionId = `demo-${runId}-${userNumber}`;
    const events = [
      {
        type: 'session_start',
        user_id: userId,
        session_id: sessionId,
        timestamp: new Date(endMs - done.sessionSeconds * 1000).toISOString(),
      },
      ...done.clicked.map((postId) => ({ type: 'click', user_id: userId, post_id: postId, session_id: sessionId })),
      { type: 'session_end', user_id: userId, session_id: sessionId, timestamp: new Date(endMs).toISOString() },
    ];
    const judged = await send(() => client.post('/api/v1/analytics/events', JudgedSchema, { events }));
    for (const postId of done.favourited) {
      const body = { user_id: userId, post_id: postId, action_type: 'favorite' };
      await send(() => client.post('/api/v1/interactions', CreatedSchema, body));
    }
    if (done.feedback !== undefined) {
      const body = { user_id: userId, post_id: done.feedback.postId, feedback: done.feedback.value };
      await send(() => client.post('/api/v1/recommendations/feedback', CreatedSchema, body));
    }
    tally.record(variant, shown.length, done, judged);
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.users) }, worker));
  if (failure !== undefined) throw failure;
  return toSummary(tally, next - 1 >= options.users ? 'users' : 'duration', (Date.now() - startedMs) / 1000);
}

/** Sends a request as a simulated user: counted, waiting as the server asks; a token the server does not know is the --db's fault. */
async function withRetries<T>(call: () => Promise<T>, tally: RunTally, identities: TrafficIdentities): Promise<T> {
  try {
    return await waitingAsAsked(
      () => {
        tally.requests += 1;
        return call();
      },
      () => (tally.waits += 1),
    );
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && identities.source.startsWith('a token per user')) {
      throw new CliError(
        `the server does not accept the tokens minted for the simulated users (${identities.source}): ` +
          'pass the database of the running server with --db, or --shared-token',
        EXIT.server,
      );
    }
    throw error;
  }
}

function progressLine(tally: RunTally, options: TrafficOptions, deadlineMs: number): string {
  const left = Math.max(0, Math.ceil((deadlineMs - Date.now()) / 1000));
  const perVariant = tally.rows
    .filter((row) => row.users > 0)
    .map((row) => `${row.name} ${row.users} (CTR ${formatPercent(row.impressions === 0 ? 0 : row.clicks / row.impressions)})`)
    .join(', ');
  return `demo traffic: ${tally.users}/${options.users} users · ${perVariant} · ${left}s left`;
}

function formatPercent(share: number): string {
  return `${(share * 100).toFixed(1).replace(/\.0$/, '')}%`;
}

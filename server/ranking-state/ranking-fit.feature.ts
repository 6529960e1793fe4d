/**
 * The ranking fit's interface (docs/ranking.md, "Fitted to the community"): the feature that
 * serves recommendations registers its two agents here — the fit itself, which evaluates and
 * stores a new default, and the one that applies the newest stored default in every process —
 * the trigger that runs the fit as soon as an import (or any burst of new interactions)
 * has come in, instead of at the agent's next interval, and the record of a data set's own
 * starting point (the demo's).
 */
import type { Kysely } from 'kysely';
import { describeRankingDefault, SHIPPED_RANKING_DEFAULT, type RankingDefault } from '../../src/ranking/ranking-default.js';
import type { Agent, AgentRunOutcome } from '../platform/agents/agent.types.js';
import type { Database } from '../platform/db/database.js';
import { rankingDefaultAgent, rankingFitAgent, readRankingFitMode, type RankingFitDeps } from './ranking-fit.agent.js';
import { insertFit } from './ranking-fit.repository.js';
import { itemModelOptionsOf, readItemModelSettings } from './item-model.agent.js';

/** How often the trigger looks (in memory only: two numbers). */
const TRIGGER_CHECK_MS = 2_000;
/** New signals that make a fit worth asking for (the agent still checks the stored count). */
const TRIGGER_MIN_SIGNALS = 500;
/** Writes quiet this long: the import has ended or paused, its data is in. */
const TRIGGER_QUIET_MS = 3_000;

export interface FitTriggerSource {
  readonly signalsSeen: number;
  readonly lastSignalAtMs: number;
}

/**
 * Asks for a `ranking_fit` run when at least `minSignals` signals came since the last ask and
 * none for `quietMs` (an import's batches, a burst of activity): the agent then fits when the
 * stored interactions are due (none fitted yet, or a fifth more), else it costs one count.
 * Returns the function that stops it.
 */
export function startFitTrigger(
  source: FitTriggerSource,
  runNow: () => Promise<AgentRunOutcome>,
  options: { checkMs?: number; minSignals?: number; quietMs?: number; now?: () => number } = {},
): () => void {
  const minSignals = options.minSignals ?? TRIGGER_MIN_SIGNALS;
  const quietMs = options.quietMs ?? TRIGGER_QUIET_MS;
  const now = options.now ?? Date.now;
  let asked = source.signalsSeen;
  let running = false;
  const timer = setInterval(() => {
    if (running || source.signalsSeen - asked < minSignals || now() - source.lastSignalAtMs < quietMs) return;
    asked = source.signalsSeen;
    running = true;
    void runNow().finally(() => {
      running = false;
    });
  }, options.checkMs ?? TRIGGER_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Registers the `ranking_fit` agent every two agent intervals (and 5 s after the start) and the
 * default-applying agent every interval; with RECSVC_RANKING_FIT=auto also the trigger, which
 * runs the `before` agents (the item model) and then the fit.
 * Returns the function that stops the trigger (call it when the app closes).
 */
export function registerRankingFit(
  agents: { register(agent: Agent): void; runNow(name: string): Promise<AgentRunOutcome> },
  deps: RankingFitDeps,
  options: {
    intervalSeconds: number;
    log: (line: string) => void;
    /** Agents the trigger runs first, in order (the item model the fit ranks with: `item_model`). */
    before?: readonly string[];
  },
): () => void {
  const mode = readRankingFitMode();
  // The fit ranks with the item model the server serves (or without it, when it is off).
  const itemModel = readItemModelSettings();
  const fit = { itemModel: itemModel.posts === 0 ? null : itemModelOptionsOf(itemModel) };
  agents.register(rankingFitAgent(deps, { mode, intervalSeconds: options.intervalSeconds * 2, log: options.log, fit }));
  agents.register(rankingDefaultAgent(deps, { mode, intervalSeconds: options.intervalSeconds }));
  if (mode.kind !== 'auto') return () => undefined;
  return startFitTrigger(deps.state, async () => {
    // A failed run of one of them is its own agent's to report; the fit still runs.
    for (const name of options.before ?? []) await runFreshly(agents, name).catch(() => undefined);
    return runFreshly(agents, 'ranking_fit');
  });
}

/**
 * Runs agent `name` on the data as of now. `runNow` joins a run already in flight, which read
 * its data before this call: a scheduled fit that started during an import counted part of it,
 * and the fit over the whole import then waited for the agent's next interval (150 s after the
 * import in `bench/served-quality.js`). A joined run is followed by one run of its own (the
 * fit agent follows up a fit that counted fewer interactions than are stored).
 */
export async function runFreshly(
  agents: { runNow(name: string): Promise<AgentRunOutcome> },
  name: string,
  now: () => number = Date.now,
): Promise<AgentRunOutcome> {
  const askedAtMs = now();
  const outcome = await agents.runNow(name);
  const startedAtMs = now() - (outcome.durationMs ?? 0);
  return startedAtMs + JOINED_TOLERANCE_MS < askedAtMs ? agents.runNow(name) : outcome;
}

/** A run that started this much before the ask still counts as started by it (clock granularity). */
const JOINED_TOLERANCE_MS = 5;

/**
 * Records `point` as the default in effect, an `applied` row of the fit log that says where it
 * came from (`source`): the `ranking_default` agents apply it within a second of their start,
 * RECSVC_RANKING_FIT still overrides it, marking it `reverted` takes it back, and the next fit
 * waits until the interactions grew by a fifth over `interactions`.
 */
export async function recordStartingPoint(
  db: Kysely<Database>,
  point: RankingDefault,
  start: { atMs: number; interactions: number; source: string },
): Promise<string> {
  return insertFit(db, {
    createdAtMs: start.atMs,
    status: 'applied',
    choice: point,
    previous: SHIPPED_RANKING_DEFAULT,
    interactions: start.interactions,
    summary: `starting point ${describeRankingDefault(point)}, not fitted: ${start.source}`,
    evidence: { source: start.source, interactions: start.interactions },
  });
}

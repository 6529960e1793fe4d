/**
 * The default ranking fitted to the community (issue 25, item 4; docs/ranking.md, "Fitted
 * to the community"). Two agents:
 * - `ranking_fit` (cluster: one instance at a time) evaluates the default ranking's
 *   neighbouring points on the service's own newest interactions (src/evaluation/fit.ts: a
 *   temporal holdout, the server's own ranking code, a minimum of data, one ladder step per
 *   fit, a move only on an interval above 0), stores every fit in `ranking_fits` (the log:
 *   what was tried, what was chosen, the evidence) and applies an applied one here. A fit runs
 *   when the interactions grew by a fifth since the last one (at least `minNewInteractions`),
 *   or a day passed and any came; other runs cost one count.
 * - `ranking_default` (every instance) applies the newest applied fit, so every instance
 *   ranks the same way within a minute of a fit.
 * The operator decides with RECSVC_RANKING_FIT: `auto` (the default), `off` (the shipped
 * default, nothing fitted), or a point as JSON (`{"collaborative":0.3,"recency_half_life_hours":8}`:
 * pinned, nothing fitted). A fit is reverted by marking its row `reverted`: the previous
 * applied one (or the shipped default) rules again at the next `ranking_default` run.
 */
import type { Kysely } from 'kysely';
import type { FitOptions, FitResult } from '../../src/evaluation/fit.js';
import {
  completeRankingDefault,
  describeRankingDefault,
  isRankingDefault,
  sameRankingDefault,
  SHIPPED_RANKING_DEFAULT,
  type RankingDefault,
} from '../../src/ranking/ranking-default.js';
import type { Agent } from '../platform/agents/agent.types.js';
import type { Database } from '../platform/db/database.js';
import type { RankingState } from './ranking-state.service.js';
import { runFit } from './ranking-fit.job.js';
import { countInteractions, FIT_MAX_INTERACTIONS, FIT_NEWEST_POSTS, insertFit, latestFits, listFits } from './ranking-fit.repository.js';

/** RECSVC_RANKING_FIT, parsed. */
export type RankingFitMode =
  { readonly kind: 'auto' } | { readonly kind: 'off' } | { readonly kind: 'pinned'; readonly point: RankingDefault };

/** RECSVC_RANKING_FIT of the environment. */
export function readRankingFitMode(env: Record<string, string | undefined> = process.env): RankingFitMode {
  return parseRankingFitMode(env.RECSVC_RANKING_FIT);
}

/** Parses RECSVC_RANKING_FIT (unset: auto); a bad value throws a one-line message naming the variable. */
export function parseRankingFitMode(value: string | undefined): RankingFitMode {
  const text = (value ?? '').trim();
  if (text === '' || text === 'auto') return { kind: 'auto' };
  if (text === 'off') return { kind: 'off' };
  let point: unknown;
  try {
    point = JSON.parse(text);
  } catch {
    point = undefined;
  }
  if (!isRankingDefault(point))
    throw new Error(
      `RECSVC_RANKING_FIT: expected auto, off or {"collaborative": 0..10, "recency_half_life_hours": > 0, "cold_start_recency": 0..1 | "hot", "content_engagement": 0..1, "per_author_cap": 1..1000, "engagement_half_life": "pace" | "all-time" | hours > 0 (the last four optional)} (got ${JSON.stringify(text)})`,
    );
  return { kind: 'pinned', point: completeRankingDefault(point) };
}

export interface RankingFitOptions {
  readonly mode: RankingFitMode;
  /** Seconds between checks of whether a fit is due. */
  readonly intervalSeconds: number;
  /** The newest interactions a fit reads (default FIT_MAX_INTERACTIONS, 100,000). */
  readonly maxInteractions?: number;
  /** A fit waits for this many new interactions at least (default 500), and a fifth more than the last fit saw. */
  readonly minNewInteractions?: number;
  /** Or for this long, with any new interaction (default a day). */
  readonly maxAgeMs?: number;
  readonly fit?: Partial<FitOptions>;
  /** The child process's script (default the built one; null: fit on this thread). */
  readonly workerScript?: URL | null;
  /** Logs each fit's one-line summary. */
  readonly log?: (line: string) => void;
}

export interface RankingFitDeps {
  readonly db: Kysely<Database>;
  readonly state: RankingState;
  /** Where the fit's child process reads the data itself (DatabaseHandle.sharedTarget); undefined: this process reads and sends it. */
  readonly sharedTarget?: string | undefined;
}

const GROWTH = 1.2;
/**
 * A fit younger than this that counted fewer interactions than are stored now (by at least
 * `minNewInteractions`) is followed up once, whatever the growth: it ran while an import went
 * on (the trigger fires on any pause of 3 s), and the next fit would otherwise wait for a fifth
 * more data — an evaluator replaying a history would be served a default fitted on part of it.
 */
export const FOLLOW_UP_WINDOW_MS = 10 * 60_000;
/**
 * Successive steps one fit may take (each one ladder step on each axis, on an interval above
 * 0; src/evaluation/fit.ts `fitSteps`): the first fit after an import must reach a point
 * worth serving, since the next waits for a fifth more data.
 */
export const FIT_STEPS = 6;

/** What serves when no fit or pin decides (RankingState's `startingRankingDefault`). */
const STARTING_POINT = 'the starting point the community’s pace names';

/**
 * Applies what the mode and the stored fits say; returns the current point, what decided it,
 * and where a fit's search starts: the applied fit's point, else the shipped one — not the
 * pace's starting point, which serves until there is evidence (docs/ranking.md, "Before the
 * first fit": started from it, the search landed elsewhere on two synthetic catalogues), and
 * which the search's end must then beat (`served`).
 */
async function applyStored(
  deps: RankingFitDeps,
  mode: RankingFitMode,
): Promise<{ point: RankingDefault; why: string; origin: RankingDefault }> {
  if (mode.kind === 'off') {
    deps.state.setRankingDefault(undefined);
    const point = deps.state.rankingDefault;
    return { point, why: `RECSVC_RANKING_FIT=off: ${STARTING_POINT}`, origin: point };
  }
  if (mode.kind === 'pinned') {
    deps.state.setRankingDefault(mode.point);
    return { point: mode.point, why: 'pinned by RECSVC_RANKING_FIT', origin: mode.point };
  }
  const { applied } = await latestFits(deps.db);
  deps.state.setRankingDefault(applied?.choice);
  return {
    point: deps.state.rankingDefault,
    why: applied === undefined ? `no fit applied yet: ${STARTING_POINT}` : `fit ${applied.id}`,
    origin: applied?.choice ?? SHIPPED_RANKING_DEFAULT,
  };
}

/** `ranking_fit`: fits the default ranking to the service's own interactions when enough new ones came. */
export function rankingFitAgent(deps: RankingFitDeps, options: RankingFitOptions): Agent {
  const maxInteractions = options.maxInteractions ?? FIT_MAX_INTERACTIONS;
  const minNew = options.minNewInteractions ?? 500;
  const maxAgeMs = options.maxAgeMs ?? 86_400_000;
  // The fits this process made as follow-ups: one is never followed up again (at most two fits per step of growth).
  const followUps = new Set<string>();
  return {
    name: 'ranking_fit',
    description:
      'fits the default ranking (collaborative and engagement weights, recency half-life, cap per author, cold start) to the service’s own interactions',
    intervalSeconds: options.intervalSeconds,
    // Soon after a start: a service started on an imported history fits it at once.
    initialDelaySeconds: Math.min(options.intervalSeconds, 5),
    timeoutSeconds: 900,
    scope: 'cluster',
    async run({ signal, now }) {
      const { point: current, why, origin } = await applyStored(deps, options.mode);
      if (options.mode.kind !== 'auto') return { summary: `not fitting: ${describeRankingDefault(current)} (${why})` };
      const { latest } = await latestFits(deps.db);
      const count = await countInteractions(deps.db);
      const grown = latest === undefined || (count >= latest.interactions * GROWTH && count - latest.interactions >= minNew);
      const aged = latest !== undefined && now() - latest.createdAtMs >= maxAgeMs && count > latest.interactions;
      const followUp =
        latest !== undefined &&
        !followUps.has(latest.id) &&
        now() - latest.createdAtMs < FOLLOW_UP_WINDOW_MS &&
        count - latest.interactions >= minNew;
      if (!grown && !aged && !followUp)
        return {
          summary: `not due: ${count} interactions (${latest?.interactions ?? 0} at the last fit); ${describeRankingDefault(current)} (${why})`,
          details: { interactions: count },
        };
      // A fit that moved the default minutes ago, on part of what is stored now (an import went
      // on), is decided again from what was served before it, as if it had not been made: all of
      // the data must ask for the move. Once: what this decides is not decided again this way.
      // (Once, across restarts too: a fit made within the window of the one before it is such a decision.)
      const [, before] = latest === undefined ? [] : await listFits(deps.db, 2);
      const redone = latest !== undefined && before !== undefined && latest.createdAtMs - before.createdAtMs < FOLLOW_UP_WINDOW_MS;
      const recent = latest !== undefined && now() - latest.createdAtMs < FOLLOW_UP_WINDOW_MS && !followUps.has(latest.id);
      const partial = recent && !redone && !aged && latest?.status === 'applied' ? latest : undefined;
      // Else searched from `origin`; when something else is served (the pace's starting point), the search must beat that too.
      const from = partial?.previous ?? origin;
      const served = partial !== undefined || sameRankingDefault(from, current) ? null : current;
      const fitted = (
        await runFit(
          { db: deps.db, sharedTarget: deps.sharedTarget, maxInteractions, newestPosts: FIT_NEWEST_POSTS },
          from,
          { steps: FIT_STEPS, ...options.fit, served },
          signal,
          options.workerScript,
        )
      ).result;
      const result: FitResult =
        partial !== undefined && fitted.status === 'kept'
          ? {
              ...fitted,
              status: 'applied',
              current,
              summary: `back to ${describeRankingDefault(partial.previous)}, served before fit ${partial.id} (made on part of an import): ${fitted.summary}`,
            }
          : fitted;
      const id = await insertFit(deps.db, {
        createdAtMs: now(),
        status: result.status,
        choice: result.chosen,
        previous: current,
        interactions: count,
        summary: result.summary,
        evidence: result.evidence,
      });
      if ((!grown && !aged) || partial !== undefined) followUps.add(id);
      if (result.status === 'applied') deps.state.setRankingDefault(result.chosen);
      options.log?.(`ranking_fit ${id}: ${result.summary}`);
      return {
        summary: result.summary,
        details: {
          status: result.status,
          fit: id,
          interactions: count,
          users: result.evidence.users,
          collaborative: result.chosen.collaborative,
          recency_half_life_hours: result.chosen.recency_half_life_hours,
          cold_start_recency: completeRankingDefault(result.chosen).cold_start_recency,
          content_engagement: completeRankingDefault(result.chosen).content_engagement,
          per_author_cap: completeRankingDefault(result.chosen).per_author_cap,
        },
      };
    },
  };
}

/** `ranking_default`: applies the newest applied fit (or the operator's choice) on this instance. */
export function rankingDefaultAgent(deps: RankingFitDeps, options: Pick<RankingFitOptions, 'mode' | 'intervalSeconds'>): Agent {
  return {
    name: 'ranking_default',
    description: 'applies the newest fitted default ranking on this instance',
    intervalSeconds: options.intervalSeconds,
    initialDelaySeconds: 1,
    scope: 'instance',
    async run() {
      const { point, why } = await applyStored(deps, options.mode);
      return { summary: `${describeRankingDefault(point)} (${why})` };
    },
  };
}

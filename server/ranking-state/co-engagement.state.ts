/**
 * The ranking state's co-engagement (src/ranking/co-engagement.ts): changed by the writers'
 * `coEngaged` events (this instance's and, over Redis, the others'), rebuilt from the stored
 * interactions at start, after a reload and after an erasure (so that nothing of an erased
 * user stays: the rebuild replays only what is stored). Changes announced while a rebuild
 * reads are applied to the rebuilt state too.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  CoEngagement,
  CoEngagementReplay,
  DEFAULT_CO_ENGAGEMENT_OPTIONS,
  type CoEngagementChange,
  type CoEngagementEvent,
  type CoEngagementOptions,
} from '../../src/ranking/index.js';
import type { InteractionAction } from '../../src/ranking/ranking.types.js';

/**
 * The newest `limit` stored interactions, oldest first (the interactions feature's read model);
 * with each row's instant and id, the writers' memory of users' newest interactions starts from it.
 */
export type CoEngagementSource = (
  limit: number,
) => Promise<(CoEngagementEvent & { readonly atMs?: number; readonly id?: string; readonly action?: InteractionAction })[]>;

/** Interactions a rebuild replays by default: the newest 200,000 (docs/ranking.md). */
export const DEFAULT_CO_ENGAGEMENT_HISTORY = 200_000;

/** Interactions replayed between two turns of the event loop: a rebuild never holds it for long. */
const REPLAY_SLICE = 10_000;

type Logged = { readonly change: CoEngagementChange } | { readonly removed: string };

export class CoEngagementHolder {
  private current: CoEngagement;
  private readonly logs = new Set<Logged[]>();
  private tail: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  /** Rebuilds done, and failed (tests, gauges). */
  rebuilds = 0;
  rebuildFailures = 0;

  constructor(
    private readonly source: CoEngagementSource | undefined,
    readonly options: CoEngagementOptions = DEFAULT_CO_ENGAGEMENT_OPTIONS,
    readonly historyLimit = DEFAULT_CO_ENGAGEMENT_HISTORY,
  ) {
    this.current = new CoEngagement(options);
  }

  /** The state now (replaced by each rebuild: read it per request, do not keep it). */
  get state(): CoEngagement {
    return this.current;
  }

  apply(change: CoEngagementChange): void {
    this.current.apply(change);
    for (const log of this.logs) log.push({ change });
  }

  remove(postIds: readonly string[]): void {
    for (const id of postIds) {
      this.current.remove(id);
      for (const log of this.logs) log.push({ removed: id });
    }
  }

  /**
   * Rebuilds from the stored interactions; resolves when a rebuild that began after this call
   * is done (calls meanwhile share it). Without a source (a state with no database) nothing happens.
   */
  rebuild(): Promise<void> {
    if (this.source === undefined) return Promise.resolve();
    if (this.queued !== undefined) return this.queued;
    const run = this.tail.then(() => {
      this.queued = undefined;
      return this.rebuildOnce();
    });
    this.queued = run;
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async rebuildOnce(): Promise<void> {
    const log: Logged[] = [];
    this.logs.add(log);
    try {
      const events = await this.source!(this.historyLimit);
      const fresh = new CoEngagement(this.options);
      const replay = new CoEngagementReplay(fresh);
      for (let i = 0; i < events.length; i++) {
        replay.add(events[i]!);
        // Changes announced meanwhile are logged, and applied below.
        if (i % REPLAY_SLICE === REPLAY_SLICE - 1) await nextTurn();
      }
      for (const entry of log) {
        if ('change' in entry) fresh.apply(entry.change);
        else fresh.remove(entry.removed);
      }
      this.current = fresh;
      this.rebuilds += 1;
    } catch (error) {
      this.rebuildFailures += 1;
      throw error;
    } finally {
      this.logs.delete(log);
    }
  }
}

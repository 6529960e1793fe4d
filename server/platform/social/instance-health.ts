/**
 * What the service sees of each social instance it talks to: every exchange of the instance
 * client is recorded here (ok, or failed with a reason), so an outage is visible — one warn
 * line when an instance stops answering and one when it answers again, per-instance counts
 * and latency for the metrics, and an `instances` component in `/api/v1/health`. An instance
 * is down from its first failed exchange (unreachable, timeout, 5xx, redirect, an unusable
 * answer) until one succeeds; 429 and the instance's 4xx answers are answers, not an outage.
 * Bounded: at most `maxInstances` are tracked (the least recently used is forgotten), since
 * any caller can name an instance.
 */

export type InstanceOutcome = 'ok' | 'error';

/** One instance as health reports it. */
export interface InstanceReading {
  instance: string;
  status: 'up' | 'down';
  requests: number;
  errors: number;
  /** Why the last failed exchange failed (e.g. `timeout`). */
  last_error?: string;
  /** Since when it is down (ISO time). */
  down_since?: string;
}

export interface InstanceHealthLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/** Told about every exchange (the metrics). */
export type InstanceObserver = (instance: string, outcome: InstanceOutcome, seconds: number) => void;

interface Tracked {
  requests: number;
  errors: number;
  lastError: string | undefined;
  downSinceMs: number | undefined;
  failedWhileDown: number;
}

const DEFAULT_MAX_INSTANCES = 200;

export class InstanceHealth {
  private readonly tracked = new Map<string, Tracked>();
  private readonly observers: InstanceObserver[] = [];
  private log: InstanceHealthLog | undefined;

  constructor(private readonly options: { maxInstances?: number; now?: () => number } = {}) {}

  /** Where outage and recovery lines go (the app's logger, once it exists). */
  useLog(log: InstanceHealthLog): void {
    this.log = log;
  }

  /** Adds an observer of every exchange. */
  observe(observer: InstanceObserver): void {
    this.observers.push(observer);
  }

  /** Records one exchange with `instance`; `reason` says why it failed. */
  record(instance: string, outcome: InstanceOutcome, seconds: number, reason?: string): void {
    const now = (this.options.now ?? Date.now)();
    const entry = this.entry(instance);
    entry.requests += 1;
    if (outcome === 'error') {
      entry.errors += 1;
      entry.lastError = reason;
      if (entry.downSinceMs === undefined) {
        entry.downSinceMs = now;
        entry.failedWhileDown = 0;
        this.log?.warn(
          { instance, reason },
          `social instance ${instance} is not answering (${reason ?? 'error'}): timelines answer degraded from the service's own store`,
        );
      }
      entry.failedWhileDown += 1;
    } else if (entry.downSinceMs !== undefined) {
      const downSeconds = Math.round((now - entry.downSinceMs) / 1000);
      this.log?.warn(
        { instance, down_seconds: downSeconds, failed_requests: entry.failedWhileDown },
        `social instance ${instance} answers again after ${downSeconds} s (${entry.failedWhileDown} failed requests)`,
      );
      entry.downSinceMs = undefined;
    }
    for (const observer of this.observers) observer(instance, outcome, seconds);
  }

  /** Every tracked instance, down ones first. */
  readings(): InstanceReading[] {
    const readings = [...this.tracked].map(([instance, t]): InstanceReading => ({
      instance,
      status: t.downSinceMs === undefined ? 'up' : 'down',
      requests: t.requests,
      errors: t.errors,
      ...(t.lastError !== undefined ? { last_error: t.lastError } : {}),
      ...(t.downSinceMs !== undefined ? { down_since: new Date(t.downSinceMs).toISOString() } : {}),
    }));
    return readings.sort((a, b) => (a.status === b.status ? a.instance.localeCompare(b.instance) : a.status === 'down' ? -1 : 1));
  }

  private entry(instance: string): Tracked {
    let entry = this.tracked.get(instance);
    if (entry !== undefined) {
      // Re-inserted: the map's order is least recently used first.
      this.tracked.delete(instance);
    } else {
      entry = { requests: 0, errors: 0, lastError: undefined, downSinceMs: undefined, failedWhileDown: 0 };
      const max = this.options.maxInstances ?? DEFAULT_MAX_INSTANCES;
      while (this.tracked.size >= max) this.tracked.delete(this.tracked.keys().next().value as string);
    }
    this.tracked.set(instance, entry);
    return entry;
  }
}

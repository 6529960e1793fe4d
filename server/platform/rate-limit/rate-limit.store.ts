/**
 * Counting for rate limits. The interface is what a shared Redis store will
 * implement (one atomic script per call); the memory store serves one process.
 */
import type { WindowLimit } from '../../../src/rate-limit/policy.js';

export interface WindowCheck {
  /** Counter key, e.g. `tier:token:abc` or `group:recommendations:ip:1.2.3.4`. */
  readonly key: string;
  readonly limit: WindowLimit;
}

export interface WindowState {
  readonly limit: number;
  /** Requests left in the window after this one (0 when refused). */
  readonly remaining: number;
  /** Epoch seconds when the window resets. */
  readonly resetAt: number;
}

export interface ConsumeResult {
  readonly allowed: boolean;
  /** Every window's state; the tightest one is reported in headers. */
  readonly windows: readonly WindowState[];
}

export interface RateLimitStore {
  /**
   * Atomically: when every window has room, count one request in all of them;
   * otherwise count nothing. A burst cannot overshoot any window.
   */
  consume(checks: readonly WindowCheck[], nowMs: number): Promise<ConsumeResult>;
}

interface Counter {
  windowStart: number;
  count: number;
}

/** Fixed windows aligned to the epoch, held in this process's memory. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, Counter>();
  private lastSweep = 0;

  async consume(checks: readonly WindowCheck[], nowMs: number): Promise<ConsumeResult> {
    this.sweep(nowMs);
    const counters = checks.map((check) => this.counterFor(check, nowMs));
    const allowed = counters.every((counter, i) => counter.count < checks[i]!.limit.max);
    if (allowed) for (const counter of counters) counter.count += 1;
    const windows = counters.map((counter, i) => {
      const limit = checks[i]!.limit;
      return {
        limit: limit.max,
        remaining: Math.max(0, limit.max - counter.count),
        resetAt: (counter.windowStart + limit.seconds * 1000) / 1000,
      };
    });
    return { allowed, windows };
  }

  private counterFor(check: WindowCheck, nowMs: number): Counter {
    const windowMs = check.limit.seconds * 1000;
    const windowStart = Math.floor(nowMs / windowMs) * windowMs;
    const mapKey = `${check.key}|${check.limit.seconds}`;
    let counter = this.counters.get(mapKey);
    if (!counter || counter.windowStart !== windowStart) {
      counter = { windowStart, count: 0 };
      this.counters.set(mapKey, counter);
    }
    return counter;
  }

  /** Drops expired counters once a minute so memory stays bounded by active callers. */
  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < 60_000) return;
    this.lastSweep = nowMs;
    for (const [key, counter] of this.counters) {
      const seconds = Number(key.slice(key.lastIndexOf('|') + 1));
      if (counter.windowStart + seconds * 1000 <= nowMs) this.counters.delete(key);
    }
  }
}

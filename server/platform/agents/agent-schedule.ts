/**
 * When agents run: the clock and timers the runner uses (injected in tests, so backoff and
 * timeouts are checked without sleeping) and the retry backoff after failures.
 */

/** Timers and time, as the runner sees them. */
export interface AgentClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process's clock; its timers never keep the process alive. */
export const systemClock: AgentClock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/** Retries after failures: base·2^(n−1) for the n-th failure in a row, capped. */
export interface RetryPolicy {
  /** Delay before the first retry (default 5 s). */
  baseMs: number;
  /** Longest delay (default 15 min, or the agent's interval when that is longer). */
  maxMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 5_000, maxMs: 15 * 60_000 };

/**
 * The delay before the retry that follows `failures` consecutive failures (≥ 1):
 * min(base·2^(failures−1), max(maxMs, interval)). A success resets the count, and the
 * agent returns to its interval.
 */
export function retryDelayMs(failures: number, intervalMs: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY): number {
  const cap = Math.max(policy.maxMs, intervalMs);
  // 2^40 already exceeds any cap: bounding the exponent keeps the product finite.
  return Math.min(policy.baseMs * 2 ** Math.min(Math.max(failures, 1) - 1, 40), cap);
}

/** A delay plus up to `jitterMs` of random spread. */
export function withJitter(delayMs: number, jitterMs: number, random: () => number): number {
  return jitterMs > 0 ? delayMs + Math.floor(random() * jitterMs) : delayMs;
}

/** The part of a cluster agent's interval that a run elsewhere may come early by and still count. */
export const CLUSTER_RUN_SLACK = 0.1;

/**
 * How long after a successful run of a cluster agent (on any instance) a scheduled run of it
 * is skipped as already done: the interval less 10% slack. The slack absorbs differences
 * between the hosts' clocks and timers that fire late, so an instance never skips a run that
 * is due by a few seconds and leaves the cluster a whole extra interval without one; the
 * price is at most one run 10% early.
 */
export function clusterRunFreshMs(intervalMs: number): number {
  return intervalMs * (1 - CLUSTER_RUN_SLACK);
}

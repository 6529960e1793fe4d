/**
 * Rate-limit counters shared by every instance, in Redis: the same fixed windows aligned
 * to the epoch as the memory store, checked and counted by ONE Lua script per request, so
 * that all of a request's windows (the tier's minute and hour, the group's) move together
 * or not at all, whichever instance the request reaches.
 *
 * Redis down or slow (the connection's command timeout): the request is allowed without
 * rate-limit headers (fail open) — a limit never turns into a 5xx. The change is logged
 * once each way, and health reports Redis as failing meanwhile.
 */
import type { RedisConnection, RedisLog } from './redis-connection.js';
import type { ConsumeResult, RateLimitStore, WindowCheck } from '../rate-limit/rate-limit.store.js';

/**
 * KEYS: one counter per window. ARGV: for each window its max, then for each its expiry
 * (epoch ms). Counts only when every window has room; returns the counts after the call
 * and 1 when allowed, 0 when refused.
 */
const CONSUME_SCRIPT = `
local n = #KEYS
local counts = {}
local allowed = 1
for i = 1, n do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  counts[i] = count
  if count >= tonumber(ARGV[i]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, n do
    counts[i] = redis.call('INCR', KEYS[i])
    if counts[i] == 1 then redis.call('PEXPIREAT', KEYS[i], ARGV[n + i]) end
  end
end
counts[n + 1] = allowed
return counts
`;

/** Counters live a little past their window, so a clock slightly behind still finds them. */
const EXPIRY_SLACK_MS = 5_000;

export class RedisRateLimitStore implements RateLimitStore {
  private failing = false;
  private readonly log: RedisLog;

  constructor(
    private readonly redis: RedisConnection,
    log?: RedisLog,
  ) {
    this.log = log ?? redis.options.log ?? { info: () => {}, warn: () => {} };
    redis.client.defineCommand('recsvcRateLimitConsume', { lua: CONSUME_SCRIPT });
  }

  /** True while the last attempt to count in Redis failed (requests are let through uncounted). */
  get failingOpen(): boolean {
    return this.failing;
  }

  async consume(checks: readonly WindowCheck[], nowMs: number): Promise<ConsumeResult> {
    if (checks.length === 0) return { allowed: true, windows: [] };
    const windows = checks.map((check) => {
      const windowMs = check.limit.seconds * 1000;
      const windowStart = Math.floor(nowMs / windowMs) * windowMs;
      return {
        key: `${this.redis.keyPrefix}rl:${check.key}|${check.limit.seconds}|${windowStart}`,
        max: check.limit.max,
        endMs: windowStart + windowMs,
      };
    });
    let reply: number[];
    try {
      const consume = (this.redis.client as unknown as Record<string, (...args: unknown[]) => Promise<number[]>>).recsvcRateLimitConsume!;
      reply = await consume.call(
        this.redis.client,
        windows.length,
        ...windows.map((w) => w.key),
        ...windows.map((w) => w.max),
        ...windows.map((w) => w.endMs + EXPIRY_SLACK_MS),
      );
    } catch (error) {
      this.setFailing(true, (error as Error).message);
      return { allowed: true, windows: [] };
    }
    this.setFailing(false);
    return {
      allowed: reply[windows.length] === 1,
      windows: windows.map((w, i) => ({ limit: w.max, remaining: Math.max(0, w.max - reply[i]!), resetAt: w.endMs / 1000 })),
    };
  }

  private setFailing(failing: boolean, reason?: string): void {
    if (failing === this.failing) return;
    this.failing = failing;
    if (failing)
      this.log.warn(`rate limits FAIL OPEN: Redis did not answer (${reason ?? 'unknown'}); requests are not counted until it does`);
    else this.log.info('rate limits are counted in Redis again');
  }
}

/**
 * How many new posts each instance's pages may add to the shared store: a token bucket per
 * instance (its capacity an hour's allowance, refilled continuously), so a self-run instance
 * answering thousands of fresh statuses cannot flood what everyone else is recommended.
 * Statuses already stored (a mapping added, the origin's update) cost nothing. Per process:
 * with several instances of the service each enforces it on the pages it reads.
 */
import { LRUCache } from 'lru-cache';

/** New posts per instance per hour (RECSVC_INSTANCE_NEW_POSTS_PER_HOUR). */
export const DEFAULT_NEW_POSTS_PER_HOUR = 3_000;
const INSTANCES_REMEMBERED = 10_000;

export class InstanceQuota {
  private readonly buckets = new LRUCache<string, { tokens: number; atMs: number }>({ max: INSTANCES_REMEMBERED });

  constructor(private readonly perHour: number = DEFAULT_NEW_POSTS_PER_HOUR) {}

  /** New posts the instance may add now (whole). */
  available(instance: string, nowMs = Date.now()): number {
    return Math.floor(this.bucket(instance, nowMs).tokens);
  }

  /** The instance added `count` new posts. */
  spend(instance: string, count: number, nowMs = Date.now()): void {
    const bucket = this.bucket(instance, nowMs);
    bucket.tokens = Math.max(0, bucket.tokens - count);
  }

  private bucket(instance: string, nowMs: number): { tokens: number; atMs: number } {
    let bucket = this.buckets.get(instance);
    if (bucket === undefined) {
      bucket = { tokens: this.perHour, atMs: nowMs };
      this.buckets.set(instance, bucket);
    }
    const refill = ((nowMs - bucket.atMs) / 3_600_000) * this.perHour;
    bucket.tokens = Math.min(this.perHour, bucket.tokens + Math.max(0, refill));
    bucket.atMs = nowMs;
    return bucket;
  }
}

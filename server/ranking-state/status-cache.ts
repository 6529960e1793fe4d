/**
 * The rendered statuses of hot posts and their serialised JSON, bounded: statuses by
 * entries (least recently used dropped first), JSON by characters. Read by the posts
 * feature; only the ranking state's events change or drop an entry.
 * No entry holds a recommendation reason (a list appends its own fields, in English, and
 * server/settings/reason-localiser.ts translates the response): entries are the same for
 * every language, so the key needs none.
 */
import { LRUCache } from 'lru-cache';
import type { Status } from '../../src/schemas/post.schema.js';
import type { PostCounts } from './ranking-state.events.js';

export interface StatusCacheOptions {
  /** Rendered statuses kept (default 20,000). */
  statusCapacity: number;
  /** Characters of serialised status JSON kept (default 32 Mi, about 16,000 typical statuses). */
  jsonMaxChars: number;
}

export const DEFAULT_STATUS_CACHE_OPTIONS: StatusCacheOptions = { statusCapacity: 20_000, jsonMaxChars: 32 * 1024 * 1024 };

export class StatusCache {
  private readonly statuses: LRUCache<string, Status>;
  /** Each status serialised once, without its closing brace (a list appends its own fields). */
  private readonly json: LRUCache<string, string>;
  private changes = 0;

  constructor(options: StatusCacheOptions = DEFAULT_STATUS_CACHE_OPTIONS) {
    this.statuses = new LRUCache({ max: options.statusCapacity });
    this.json = new LRUCache({ maxSize: options.jsonMaxChars, sizeCalculation: (value) => Math.max(1, value.length) });
  }

  /** A cached status (marked as recently used). */
  status(id: string): Status | undefined {
    return this.statuses.get(id);
  }

  /** Caches a status just rendered from the database. */
  keepStatus(status: Status): void {
    this.statuses.set(status.id, status);
  }

  /** A cached status' JSON prefix (marked as recently used). */
  jsonPrefix(id: string): string | undefined {
    return this.json.get(id);
  }

  /** Caches a status' JSON prefix. */
  keepJsonPrefix(id: string, json: string): void {
    this.json.set(id, json);
  }

  /**
   * Bumped whenever a cached status may serialise differently from now on (changed, counted,
   * gone, everything dropped): JSON read at an equal version is still current. Entries the
   * bounds evict do not bump it: they render again the same.
   */
  get version(): number {
    return this.changes;
  }

  /** Drops a post's entries (it changed or is gone). */
  forget(id: string): void {
    this.changes += 1;
    this.statuses.delete(id);
    this.json.delete(id);
  }

  /** Patches a cached status' counters in place and drops its now stale JSON. */
  countsChanged(id: string, counts: PostCounts): void {
    this.changes += 1;
    this.json.delete(id);
    const status = this.statuses.peek(id);
    if (status) {
      status.favourites_count = counts.favourites;
      status.reblogs_count = counts.reblogs;
      status.replies_count = counts.replies;
    }
  }

  /** Drops everything. */
  clear(): void {
    this.changes += 1;
    this.statuses.clear();
    this.json.clear();
  }

  /** Entries and (for the JSON) characters held. */
  sizes(): { statuses: number; json: number; jsonChars: number } {
    return { statuses: this.statuses.size, json: this.json.size, jsonChars: this.json.calculatedSize };
  }
}

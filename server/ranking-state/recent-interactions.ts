/**
 * The co-engagement writers' memory of each user's newest stored interactions (post, time,
 * id), so that an interaction's partners (the user's `window` most recent other posts before
 * it, docs/ranking.md) are found without a read of `interactions` inside the write's
 * transaction: that read was a third of a write's SQL (bench/README.md, issue 27).
 *
 * What a user's entry holds is always a SUFFIX of the user's stored rows in (time, id) order:
 * every row at or after the oldest one held (or every row, when `complete`). Inserting a row
 * older than that suffix is skipped, deleting rows and dropping the oldest keep it a suffix,
 * so an answer taken from it is the one the stored rows give; when the suffix cannot answer
 * (a write dated before it, or rows deleted since), the caller reads the database as before.
 * Only one process may write the database for this to hold (SQLite: the writers use it only
 * when BatchedTransactionRunner.sharedAcrossProcesses is false).
 *
 * Forgotten: a user on erasure, a level change, a failed write unit or another instance's
 * signal; posts' rows when the posts are deleted (their interactions go with them); everything
 * on reload (a restore, a bulk import). Rows purged by retention (90 days and older) are not
 * announced: an entry lives at most `ttlMs`, after which it is read again.
 */
import { LRUCache } from 'lru-cache';

/** One stored interaction as the pairing needs it. */
export interface HeldInteraction {
  readonly postId: string;
  readonly atMs: number;
  readonly id: string;
}

interface Entry {
  /** Newest first, by (atMs, id). */
  rows: HeldInteraction[];
  /** Whether `rows` are all the user's stored rows (else: all from the oldest held on). */
  complete: boolean;
}

export interface RecentInteractionsOptions {
  /** Rows held per user: enough for `window` distinct other posts (a post has at most three rows) and a write's own. */
  rowsPerUser: number;
  /** Estimated bytes all entries may hold (least recently used users dropped first). */
  maxBytes: number;
  /** How long an entry is trusted after it was read from the database. */
  ttlMs: number;
}

/**
 * Estimated bytes of a held row (object, id string) and of a user's entry (its key, array and
 * the LRU's bookkeeping). 1.4x what they were (100 and 200): on the 100k-user set the memory held
 * 47 MB against 33.5 MB estimated (cleared and collected; bench/README.md, "Memory budget, 2026-11-28").
 */
const ROW_BYTES = 140;
const ENTRY_BYTES = 280;

/** Whether (atMs, id) comes before (otherMs, otherId): the order of the stored rows' (created_at_ms, id). */
function before(atMs: number, id: string, otherMs: number, otherId: string): boolean {
  return atMs < otherMs || (atMs === otherMs && id < otherId);
}

/** Rows held per user for a pairing window: 3 rows per post at most, plus a post's own three. */
export function rowsForWindow(window: number): number {
  return 3 * window + 3;
}

export class RecentInteractions {
  private readonly users: LRUCache<string, Entry>;
  /** Answers taken from memory, and reads of the database (tests, bench). */
  hits = 0;
  misses = 0;
  /** Bumped by every change: a `fill` from a read taken before a change would be stale. */
  private changes = 0;

  constructor(readonly options: RecentInteractionsOptions) {
    this.users = new LRUCache({
      maxSize: options.maxBytes,
      ttl: options.ttlMs,
      sizeCalculation: (entry) => ENTRY_BYTES + ROW_BYTES * Math.max(entry.rows.length, 1),
    });
  }

  /** Whether an entry for the user is held (else `load` it first). */
  holds(userId: string): boolean {
    return this.users.has(userId);
  }

  /** The user's newest stored rows, newest first, as read at most `rowsPerUser` of them (fewer: all of them). */
  load(userId: string, newestFirst: readonly HeldInteraction[]): void {
    this.changes += 1;
    const limit = this.options.rowsPerUser;
    this.users.set(userId, { rows: newestFirst.slice(0, limit), complete: newestFirst.length < limit });
  }

  /**
   * The posts of the user's `window` most recent interactions before (atMs, id) on other posts
   * than `postId`, distinct, newest first; undefined when the held rows cannot tell.
   */
  partnersBefore(userId: string, postId: string, atMs: number, id: string, window: number): string[] | undefined {
    const entry = this.users.get(userId);
    if (entry === undefined) return undefined;
    const out: string[] = [];
    for (const row of entry.rows) {
      if (out.length >= window) break;
      if (!before(row.atMs, row.id, atMs, id)) continue;
      if (row.postId !== postId && !out.includes(row.postId)) out.push(row.postId);
    }
    if (out.length < window && !entry.complete) {
      this.misses += 1;
      return undefined;
    }
    this.hits += 1;
    return out;
  }

  /** Where memory stands now: hand it to `fill` with a read begun after. */
  get mark(): number {
    return this.changes;
  }

  /**
   * The newest stored interactions of all users (oldest first, as a co-engagement rebuild reads
   * them; `wholeTable` when that is every stored row), read after `mark`: each user not held
   * yet gets their newest rows among them, which are a suffix of their stored rows because the
   * read is a suffix of all rows in the same order. Nothing when memory changed since `mark`
   * (the read may miss a change), or when the rows carry no instant and id.
   */
  fill(oldestFirst: readonly { userId: string; postId: string; atMs?: number; id?: string }[], wholeTable: boolean, mark: number): void {
    if (mark !== this.changes) return;
    const limit = this.options.rowsPerUser;
    const byUser = new Map<string, HeldInteraction[]>();
    for (let i = oldestFirst.length - 1; i >= 0; i--) {
      const { userId, postId, atMs, id } = oldestFirst[i]!;
      if (atMs === undefined || id === undefined) return;
      let rows = byUser.get(userId);
      if (rows === undefined) {
        if (this.users.has(userId)) continue;
        byUser.set(userId, (rows = []));
      }
      if (rows.length < limit) rows.push({ postId, atMs, id });
    }
    // Least recently active first, so that the most recently active stay when the bound drops some.
    for (const [userId, rows] of [...byUser].reverse()) {
      if (this.users.has(userId)) continue;
      this.users.set(userId, { rows, complete: wholeTable && rows.length < limit });
    }
  }

  /** A row was stored (inside the writer's transaction: a failed unit must `forget` the user). */
  added(userId: string, row: HeldInteraction): void {
    this.changes += 1;
    const entry = this.users.get(userId);
    if (entry === undefined) return;
    const rows = entry.rows;
    let at = 0;
    while (at < rows.length && before(row.atMs, row.id, rows[at]!.atMs, rows[at]!.id)) at++;
    if (at < rows.length && rows[at]!.id === row.id) return;
    // Older than every row held of a partial suffix: whatever lies between is unknown.
    if (at === rows.length && !entry.complete) return;
    const held = rows.length;
    rows.splice(at, 0, row);
    if (rows.length > this.options.rowsPerUser) {
      rows.length = this.options.rowsPerUser;
      entry.complete = false;
    }
    // Stored again only for the cache to count a new size (a full entry keeps its size: `get` made it the most recent).
    if (rows.length !== held) this.users.set(userId, entry, { noUpdateTTL: true });
  }

  /** A row was deleted (an undo). */
  removed(userId: string, id: string): void {
    this.changes += 1;
    const entry = this.users.get(userId);
    if (entry === undefined) return;
    const at = entry.rows.findIndex((row) => row.id === id);
    if (at === -1) return;
    entry.rows.splice(at, 1);
    if (entry.rows.length === 0 && !entry.complete) this.users.delete(userId);
    else this.users.set(userId, entry, { noUpdateTTL: true });
  }

  /** Posts were deleted: their interactions with them. */
  postsRemoved(postIds: readonly string[]): void {
    this.changes += 1;
    if (postIds.length === 0 || this.users.size === 0) return;
    const gone = new Set(postIds);
    const emptied: string[] = [];
    for (const [userId, entry] of this.users.entries()) {
      if (!entry.rows.some((row) => gone.has(row.postId))) continue;
      entry.rows = entry.rows.filter((row) => !gone.has(row.postId));
      if (entry.rows.length === 0 && !entry.complete) emptied.push(userId);
    }
    for (const userId of emptied) this.users.delete(userId);
  }

  forget(userId: string): void {
    this.changes += 1;
    this.users.delete(userId);
  }

  clear(): void {
    this.changes += 1;
    this.users.clear();
  }

  get size(): number {
    return this.users.size;
  }

  get estimatedBytes(): number {
    return this.users.calculatedSize;
  }
}

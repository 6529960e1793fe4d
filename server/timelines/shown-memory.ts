/**
 * What each user was recently shown (real and injected status ids), so that a recommendation is
 * never a status the user just saw, and walking `next` pages never repeats one. Each user's ids
 * are a set in order of last showing: re-reading a page moves its ids to the newest end instead
 * of adding them again, so the memory holds SHOWN_MEMORY_PER_USER distinct ids. In memory, bounded
 * per user and in users; forgetting only means an older status may be injected again.
 */
import { LRUCache } from 'lru-cache';

/** Statuses remembered per user as recently shown (never injected again while remembered). */
export const SHOWN_MEMORY_PER_USER = 1_000;
/** Users whose recently shown statuses are remembered (least recently active forgotten first). */
export const SHOWN_MEMORY_USERS = 10_000;
const SHOWN_MEMORY_TTL_MS = 6 * 3_600_000;

export class ShownMemory {
  private readonly users = new LRUCache<string, Set<string>>({ max: SHOWN_MEMORY_USERS, ttl: SHOWN_MEMORY_TTL_MS });

  constructor(private readonly perUser = SHOWN_MEMORY_PER_USER) {}

  /** The user's recently shown ids, oldest first (empty when none): read it, do not change it. */
  of(userId: string): ReadonlySet<string> {
    return this.users.get(userId) ?? EMPTY;
  }

  /** The user was just shown these ids: each becomes the newest, the oldest beyond the bound are forgotten. */
  remember(userId: string, ids: readonly string[]): void {
    const shown = this.users.get(userId) ?? new Set<string>();
    for (const id of ids) {
      shown.delete(id);
      shown.add(id);
    }
    for (const oldest of shown) {
      if (shown.size <= this.perUser) break;
      shown.delete(oldest);
    }
    this.users.set(userId, shown);
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/**
 * The in-process half of DatabaseHandle.withExclusiveLock: a set of the names this process
 * holds. SQLite needs nothing more (one process owns the file's agents); PostgreSQL puts an
 * advisory lock behind it (postgres-advisory-lock.ts), whose session-level locks are
 * re-entrant: without this set, two holders in one process sharing the lock connection
 * would both be granted the lock.
 */
import type { ExclusiveLock, ExclusiveOutcome } from './database-handle.js';

/** How a lock is taken beyond this process: its release when granted, the reason when not. */
export type OuterLock = (name: string) => Promise<{ release: () => Promise<void> } | string>;

/** A named lock held within this process, and within `outer` when given. */
export function exclusiveLock(outer?: OuterLock): ExclusiveLock {
  const held = new Set<string>();
  return async <T>(name: string, work: () => Promise<T>): Promise<ExclusiveOutcome<T>> => {
    if (held.has(name)) return { acquired: false, reason: `${name} is held by this process` };
    held.add(name);
    try {
      const granted = outer ? await outer(name) : undefined;
      if (typeof granted === 'string') return { acquired: false, reason: granted };
      try {
        return { acquired: true, value: await work() };
      } finally {
        await granted?.release();
      }
    } finally {
      held.delete(name);
    }
  };
}

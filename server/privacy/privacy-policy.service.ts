/**
 * The deployment's PrivacyPolicy: each user's tracking level (their stored choice, else the
 * deployment default), the pseudonyms of analytics tables, and the levels' changes.
 *
 * - Levels are cached in memory, bounded (least recently used out); a miss reads the stored
 *   choice synchronously (level-reader.ts). Every change goes through `setLevel` or
 *   `forgetUser` (erasure), which update the cache after the commit and tell the listeners
 *   (experiment enrolment, the RAG index's excluded authors); a change another instance
 *   committed arrives through `outsideChange` (the database's notification) and does the same.
 * - While a user's data is being erased, `levelOf` answers `none`: a write path that asks
 *   during the erasure stores nothing (see privacy-erasure.service.ts).
 * - pseudonym = hex HMAC-SHA256(key, canonical user id), the key from pseudonym-key.ts.
 */
import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import { allowanceOf, isTrackingLevel, type TrackingAllowance, type TrackingLevel } from '../../src/privacy/tracking-level.js';
import { canonicalUserId } from '../../src/experiments/canonical-user-id.js';
import { LruCache } from '../../src/lru-cache.js';
import type { Database } from '../platform/db/database.js';
import { fileLevelReader, mirrorLevelReader, type LevelReader } from './level-reader.js';
import type { PrivacyPolicy } from './privacy-policy.types.js';
import { findTrackingLevel, listTrackingLevels, saveTrackingLevel } from './privacy.repository.js';
import { DEFAULT_PRIVACY_SETTINGS, type PrivacySettings } from './privacy.settings.js';
import { loadPseudonymKey, pseudonymKeyPath } from './pseudonym-key.js';

/** Users whose level is kept in memory. */
export const DEFAULT_LEVEL_CACHE_CAPACITY = 50_000;

/** Told after a user's level changed (`undefined`: back to the default, after erasure). */
export type LevelListener = (userId: string, level: TrackingLevel) => void;
export type OutsideLevelListener = (userId: string, level: TrackingLevel, erased: boolean) => void;
/** A write of this process to a user's privacy row: a level stored, or the row erased. */
export type OwnWrite = TrackingLevel | 'erased';

/** How long the notification of a write of this process's own is recognised as its echo (ms). */
export const OWN_WRITE_ECHO_MS = 60_000;

export interface PrivacyPolicyDeps {
  db: Kysely<Database>;
  key: Buffer;
  defaultLevel: TrackingLevel;
  reader: LevelReader;
  cacheCapacity?: number;
  now?: () => number;
}

export class PrivacyPolicyService implements PrivacyPolicy {
  readonly defaultLevel: TrackingLevel;
  /** The stored choice per user; null: none stored (the default applies). */
  private readonly cache: LruCache<string, TrackingLevel | null>;
  /** Users being erased, with how many erasures of them are running. */
  private readonly erasing = new Map<string, number>();
  private readonly listeners: LevelListener[] = [];
  private readonly outsideListeners: OutsideLevelListener[] = [];
  /**
   * What this process wrote to each user's row lately (a level, or `erased`), with when it
   * began writing it: the database's notification of that write comes back here too, and is
   * not another process's change. Recorded before the write, since the notification can be
   * read before the writer's own commit resolves; several values, since the notifications of
   * quick successive writes (an erasure's `none`, then its deletion) may be read in any state.
   */
  private readonly ownWrites: LruCache<string, Map<OwnWrite, number>>;
  /** Pseudonyms of recent users (every interaction and served list asks): an HMAC each only on a miss. */
  private readonly pseudonyms: LruCache<string, string>;

  constructor(private readonly deps: PrivacyPolicyDeps) {
    this.defaultLevel = deps.defaultLevel;
    this.cache = new LruCache(deps.cacheCapacity ?? DEFAULT_LEVEL_CACHE_CAPACITY);
    this.pseudonyms = new LruCache(deps.cacheCapacity ?? DEFAULT_LEVEL_CACHE_CAPACITY);
    this.ownWrites = new LruCache(deps.cacheCapacity ?? DEFAULT_LEVEL_CACHE_CAPACITY);
  }

  levelOf(userId: string): TrackingLevel {
    if (this.erasing.has(userId)) return 'none';
    return this.storedLevel(userId) ?? this.defaultLevel;
  }

  allowanceFor(userId: string): TrackingAllowance {
    return allowanceOf(this.levelOf(userId));
  }

  pseudonym(userId: string): string {
    let pseudonym = this.pseudonyms.get(userId);
    if (pseudonym === undefined) {
      // One account, one pseudonym: `@Alice@Host` and `alice@host` are the same user (src/experiments/canonical-user-id.ts).
      pseudonym = createHmac('sha256', this.deps.key).update(canonicalUserId(userId), 'utf8').digest('hex');
      this.pseudonyms.set(userId, pseudonym);
    }
    return pseudonym;
  }

  /** The level the user chose, undefined when they never chose one (or were erased since). */
  storedLevel(userId: string): TrackingLevel | undefined {
    let stored = this.cache.get(userId);
    if (stored === undefined) {
      const text = this.deps.reader.read(userId);
      // A value no version wrote is read as the most private level rather than trusted.
      stored = text === undefined ? null : isTrackingLevel(text) ? text : 'none';
      this.cache.set(userId, stored);
    }
    return stored ?? undefined;
  }

  /** Stores the user's choice; the cache and listeners learn it once committed. */
  async setLevel(userId: string, level: TrackingLevel, db: Kysely<Database> = this.deps.db): Promise<void> {
    this.expectOwnWrite(userId, level);
    await saveTrackingLevel(db, userId, level, (this.deps.now ?? Date.now)());
    this.levelStored(userId, level);
  }

  /** The user's stored choice was committed elsewhere (in a caller's transaction): cache it, tell the listeners. */
  levelStored(userId: string, level: TrackingLevel): void {
    this.expectOwnWrite(userId, level);
    this.deps.reader.written(userId, level);
    this.cache.set(userId, level);
    this.notify(userId);
  }

  /** The user's row is gone (erasure committed): they are at the default level again. */
  forgetUser(userId: string): void {
    this.expectOwnWrite(userId, 'erased');
    this.pseudonyms.delete(userId);
    this.deps.reader.written(userId, undefined);
    this.cache.set(userId, null);
    this.notify(userId);
  }

  /**
   * Another instance changed the user's privacy row (undefined: anyone's may have changed while
   * nobody listened): read it again, then tell the listeners, as for a change made here.
   */
  async outsideChange(userId: string | undefined): Promise<void> {
    if (userId !== undefined) {
      const text = await findTrackingLevel(this.deps.db, userId);
      this.deps.reader.written(userId, text);
      this.cache.delete(userId);
      this.notify(userId);
      const level = this.levelOf(userId);
      // A row that is gone was erased (only an erasure deletes one).
      const erased = text === undefined;
      // The echo of this process's own write (what it wrote is what is stored) is no outside change.
      if (this.isOwnWrite(userId, erased ? 'erased' : level)) return;
      this.ownWrites.delete(userId);
      for (const listener of this.outsideListeners) listener(userId, level, erased);
      return;
    }
    const rows = await listTrackingLevels(this.deps.db);
    this.deps.reader.replaceAll(rows);
    this.cache.clear();
    for (const row of rows) this.notify(row.user_id);
  }

  /** Until the returned release is called, `levelOf(userId)` is `none`. */
  holdAtNone(userId: string): () => void {
    this.erasing.set(userId, (this.erasing.get(userId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.erasing.get(userId) ?? 1) - 1;
      if (left <= 0) this.erasing.delete(userId);
      else this.erasing.set(userId, left);
      this.notify(userId);
    };
  }

  /**
   * This process is about to write `value` to the user's row (call before the write commits):
   * the database's notification of it is then not taken for another process's change.
   */
  expectOwnWrite(userId: string, value: OwnWrite): void {
    let writes = this.ownWrites.get(userId);
    if (writes === undefined) this.ownWrites.set(userId, (writes = new Map<OwnWrite, number>()));
    writes.set(value, performance.now());
  }

  /** The stored `value` is what this process wrote lately (the notification is its echo). */
  private isOwnWrite(userId: string, value: OwnWrite): boolean {
    const at = this.ownWrites.get(userId)?.get(value);
    return at !== undefined && performance.now() - at <= OWN_WRITE_ECHO_MS;
  }

  /** Calls `listener` after every change of a user's level. */
  onLevelChange(listener: LevelListener): void {
    this.listeners.push(listener);
  }

  /**
   * Calls `listener` after each change of a user's privacy row that another process committed
   * (outsideChange), after the level listeners; `erased` when the row is gone (an erasure). Not
   * for the notification of a write of this process's own, when the row still says what it wrote.
   */
  onOutsideLevelChange(listener: OutsideLevelListener): void {
    this.outsideListeners.push(listener);
  }

  /** Users whose level is cached (the service_cache_entries gauge). */
  get cachedUsers(): number {
    return this.cache.size;
  }

  close(): void {
    this.deps.reader.close();
  }

  private notify(userId: string): void {
    const level = this.levelOf(userId);
    for (const listener of this.listeners) listener(userId, level);
  }
}

export interface PrivacyPolicyOptions extends Partial<PrivacySettings> {
  /** The database file: the key file goes beside it and misses read it. Absent or `:memory:`: an ephemeral key and an in-memory mirror. */
  dbPath?: string | undefined;
  cacheCapacity?: number;
  now?: () => number;
}

/**
 * The policy of a deployment (start.ts, the agent host): its key (pseudonym-key.ts, InputError
 * when unreadable) and its stored levels. Without `dbPath` (most tests): an ephemeral key.
 */
export async function createPrivacyPolicy(db: Kysely<Database>, options: PrivacyPolicyOptions = {}): Promise<PrivacyPolicyService> {
  const key = loadPseudonymKey({ configured: options.pseudonymKey, dbPath: options.dbPath });
  const file = pseudonymKeyPath(options.dbPath) === undefined ? undefined : options.dbPath;
  const reader = file === undefined ? await mirrorLevelReader(db) : fileLevelReader(file);
  return new PrivacyPolicyService({
    db,
    key,
    reader,
    defaultLevel: options.defaultLevel ?? DEFAULT_PRIVACY_SETTINGS.defaultLevel,
    ...(options.cacheCapacity === undefined ? {} : { cacheCapacity: options.cacheCapacity }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}

/**
 * Erasing a user's data: everything (`DELETE /api/v1/privacy/data`), their tracking data (a
 * change to `none`), or their event-level rows (a change from `full` to `limited`).
 *
 * Writes racing an erasure leave nothing behind:
 * 1. new writes stop storing: an erasure holds the user at `none` in the policy (a level
 *    change has stored the new level already), so write paths asking the policy store nothing;
 * 2. the requests of the user (and admins') that began before are waited for (their writes
 *    are committed when they answer: in-flight-requests.ts);
 * 3. one transaction deletes the rows of the raw id and of the pseudonym from every table
 *    with a `user_id` column (user-data.repository.ts), after each other feature's part of a
 *    full erasure (user-data.types.ts: the user's refresh tokens, the erased admin's name on
 *    integration settings, the live credentials counted). A full erasure then empties the token
 *    caches (the user's deleted tokens are refused from then on) and does 2-3 again, for
 *    writes that do not ask the policy (settings) and began meanwhile;
 * 4. memory is told: the ranking state's `userErased` (profiles, lists; the co-engagement
 *    state is rebuilt from what is left, and the erasure waits for it), the RAG index
 *    (chunks of the user's posts), the policy's level cache; then the hold is released.
 * Erasures and level changes of one user run one at a time. Repeating one finds nothing: counts 0.
 *
 * Several instances (PostgreSQL): a full erasure stores the user at `none` first, so the
 * others learn it at once (migration 0026's notification) and stop storing; each of them then
 * waits for ITS OWN requests of the user that began before and deletes what they wrote
 * (`followOutsideLevelChanges`) — the erasing instance cannot wait for another's requests.
 * A level lowered on another instance is followed up the same way.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import type { RankingEvents } from '../ranking-state/ranking-state.events.js';
import type { InFlightRequests } from './in-flight-requests.js';
import type { PrivacyPolicyService } from './privacy-policy.service.js';
import {
  deleteUserRows,
  EVENT_LEVEL_TABLES,
  findUserTables,
  SETTINGS_AND_CREDENTIAL_TABLES,
  type UserTable,
} from './user-data.repository.js';
import type { UserAccounts, UserDataPart } from './user-data.types.js';

/** What an erasure removes: `everything`, the `tracking` data a level `none` may not keep, or the `events` of `limited`. */
export type ErasureScope = 'everything' | 'tracking' | 'events';

export interface ErasureReport {
  /** Rows deleted per table (tables with none left out). */
  deleted: Record<string, number>;
  rows_deleted: number;
  /** Live service tokens and OAuth token families revoked (deleted). */
  credentials_revoked: number;
  /** Chunks of the user's posts removed from the RAG index. */
  rag_chunks_removed: number;
}

export interface ErasureDeps {
  db: Kysely<Database>;
  policy: PrivacyPolicyService;
  inFlight: InFlightRequests;
  /** The ranking state: its erasure event drops profiles and cached lists; `erasureApplied` resolves once what it recomputes is done. */
  ranking: Pick<RankingEvents, 'userErased'> & { erasureApplied?(): Promise<void> };
  /** Caches of verified tokens, emptied after credentials are deleted. */
  tokenCaches: ReadonlyArray<{ forget(): void }>;
  /** The RAG index, when there is one. */
  rag?: { removeAuthor(accountId: string): number };
  /** Which stored accounts are the user's (their posts' chunks leave the RAG index). */
  accounts?: Pick<UserAccounts, 'ownAccountIds'>;
  /** Other features' parts of a full erasure, run in this order in its transaction. */
  userData?: readonly UserDataPart[];
  /** Longest wait for a request in flight (default 15 s). */
  drainTimeoutMs?: number;
  /** After the rows are deleted: leaves none of their bytes in the database files (db/maintenance.ts scrubDeletedData). */
  scrubDeleted?: () => Promise<unknown>;
  now?: () => number;
}

/** Runs one task per user at a time (erasures and level changes). */
export class UserQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(userId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(userId) ?? Promise.resolve();
    const current = previous.then(task, task);
    const tail = current.catch(() => undefined);
    this.tails.set(userId, tail);
    try {
      return await current;
    } finally {
      if (this.tails.get(userId) === tail) this.tails.delete(userId);
    }
  }
}

export class PrivacyErasureService {
  readonly queue = new UserQueue();
  private tables: Promise<UserTable[]> | undefined;

  constructor(private readonly deps: ErasureDeps) {}

  /** Erases everything of the user (see the file's comment). */
  async eraseUser(userId: string): Promise<ErasureReport> {
    return this.queue.run(userId, async () => {
      const release = this.deps.policy.holdAtNone(userId);
      try {
        // Stored (not only held here) so that other instances stop storing too and clean up after their own requests.
        const hadRow = this.deps.policy.storedLevel(userId) !== undefined;
        await this.deps.policy.setLevel(userId, 'none');
        // The row's deletion below is this process's own too (its notification can be read before forgetUser).
        this.deps.policy.expectOwnWrite(userId, 'erased');
        const first = await this.drainAndDelete(userId, 'everything');
        // The row written just above is the erasure's, not the user's data: not reported as deleted.
        if (!hadRow) uncount(first, 'privacy_settings');
        // From here the user's service tokens are refused, so no request of theirs begins.
        for (const cache of this.deps.tokenCaches) cache.forget();
        const second = await this.drainAndDelete(userId, 'everything');
        for (const cache of this.deps.tokenCaches) cache.forget();
        const report = mergeReports(first, second);
        this.deps.ranking.userErased(userId);
        await this.deps.ranking.erasureApplied?.();
        report.rag_chunks_removed = await this.removeChunks(userId);
        this.deps.policy.forgetUser(userId);
        await this.deps.scrubDeleted?.();
        return report;
      } finally {
        release();
      }
    });
  }

  /**
   * Inside the user's queue (a level change): waits for the user's requests in flight, then
   * deletes what `scope` says and tells memory. The new level must be stored before.
   */
  async eraseForLevel(userId: string, scope: Exclude<ErasureScope, 'everything'>): Promise<ErasureReport> {
    const report = await this.drainAndDelete(userId, scope);
    if (scope === 'tracking') {
      this.deps.ranking.userErased(userId);
      await this.deps.ranking.erasureApplied?.();
      report.rag_chunks_removed = await this.removeChunks(userId);
    }
    if (report.rows_deleted > 0) await this.deps.scrubDeleted?.();
    return report;
  }

  private async drainAndDelete(userId: string, scope: ErasureScope): Promise<ErasureReport> {
    await this.deps.inFlight.settled(userId, this.deps.drainTimeoutMs ?? 15_000);
    const keys = [userId, this.deps.policy.pseudonym(userId)];
    const tables = (await this.userTables()).filter((table) => inScope(table.name, scope));
    const afterCommit: Array<() => Promise<void>> = [];
    const report = await this.deps.db.transaction().execute(async (trx) => {
      const report: ErasureReport = { deleted: {}, rows_deleted: 0, credentials_revoked: 0, rag_chunks_removed: 0 };
      const count = (table: string, rows: number): void => {
        if (rows === 0) return;
        report.deleted[table] = (report.deleted[table] ?? 0) + rows;
        report.rows_deleted += rows;
      };
      if (scope === 'everything') {
        const nowMs = (this.deps.now ?? Date.now)();
        for (const part of this.deps.userData ?? []) {
          if (!part.erase) continue;
          const erased = await part.erase(trx, keys, nowMs);
          report.credentials_revoked += erased.credentialsRevoked;
          for (const [table, rows] of Object.entries(erased.deleted)) count(table, rows);
        }
      }
      if (scope !== 'events') {
        for (const part of this.deps.userData ?? []) {
          const announce = part.untrack && (await part.untrack(trx, keys));
          if (announce) afterCommit.push(announce);
        }
      }
      for (const table of tables) count(table.name, await deleteUserRows(trx, table.name, keys));
      return report;
    });
    // A failure here leaves stale counts in memory only (the candidate pool refresh reads them again): the erasure stands.
    for (const announce of afterCommit) await announce().catch(() => undefined);
    return report;
  }

  private async removeChunks(userId: string): Promise<number> {
    const { rag, accounts } = this.deps;
    if (!rag || !accounts) return 0;
    let removed = 0;
    for (const accountId of await accounts.ownAccountIds(userId)) removed += rag.removeAuthor(accountId);
    return removed;
  }

  private async userTables(): Promise<UserTable[]> {
    this.tables ??= findUserTables(this.deps.db);
    return this.tables;
  }
}

function inScope(table: string, scope: ErasureScope): boolean {
  if (scope === 'everything') return true;
  if (scope === 'events') return EVENT_LEVEL_TABLES.has(table);
  return !SETTINGS_AND_CREDENTIAL_TABLES.has(table);
}

/** Takes one row of `table` out of the report. */
function uncount(report: ErasureReport, table: string): void {
  const rows = report.deleted[table];
  if (rows === undefined) return;
  if (rows <= 1) delete report.deleted[table];
  else report.deleted[table] = rows - 1;
  report.rows_deleted -= 1;
}

function mergeReports(a: ErasureReport, b: ErasureReport): ErasureReport {
  const deleted = { ...a.deleted };
  for (const [table, rows] of Object.entries(b.deleted)) deleted[table] = (deleted[table] ?? 0) + rows;
  return {
    deleted,
    rows_deleted: a.rows_deleted + b.rows_deleted,
    credentials_revoked: a.credentials_revoked + b.credentials_revoked,
    rag_chunks_removed: 0,
  };
}

/**
 * On each level another process lowered (to `limited` or `none`), and each row it erased:
 * waits for this instance's requests of the user that began before, then deletes
 * what the new level may not keep — the rows those requests wrote after the other process's
 * own deletion. Wired by the privacy feature on every instance; on SQLite never called.
 */
export function followOutsideLevelChanges(
  policy: Pick<PrivacyPolicyService, 'onOutsideLevelChange'>,
  erasure: PrivacyErasureService,
  onError: (error: unknown, userId: string) => void,
): void {
  policy.onOutsideLevelChange((userId, level, erased) => {
    // An erasure's row may already be gone when its `none` is read here: a missing row is an erasure too.
    const scope = erased || level === 'none' ? 'tracking' : level === 'limited' ? 'events' : undefined;
    if (scope === undefined) return;
    erasure.queue.run(userId, () => erasure.eraseForLevel(userId, scope)).catch((error: unknown) => onError(error, userId));
  });
}

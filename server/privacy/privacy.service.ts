/**
 * A user's privacy: the settings view, level changes and the export.
 *
 * A level change stores the level, then (in the user's queue, after the user's requests in
 * flight finished) erases what the new level may not keep: to `none` every tracking row
 * (interactions, feedback, preferences, affinities, interests, assignments, events,
 * impressions, aggregate counts; the settings and credentials stay), to `limited` the
 * event-level rows (analytics events, impressions). Going to `full` erases nothing.
 */
import type { Kysely } from 'kysely';
import { allowanceOf, type TrackingLevel } from '../../src/privacy/tracking-level.js';
import type { Database } from '../platform/db/database.js';
import type { ErasureReport, PrivacyErasureService } from './privacy-erasure.service.js';
import type { PrivacyPolicyService } from './privacy-policy.service.js';
import type { PrivacyExport, PrivacySettingsView } from './privacy.schema.js';
import { findUserTables, selectUserRows } from './user-data.repository.js';
import type { UserDataPart } from './user-data.types.js';

export interface PrivacyServiceDeps {
  db: Kysely<Database>;
  policy: PrivacyPolicyService;
  erasure: PrivacyErasureService;
  /** Other features' parts of the export, after the `user_id` tables. */
  userData?: readonly UserDataPart[];
  now?: () => number;
}

export class PrivacyService {
  constructor(private readonly deps: PrivacyServiceDeps) {}

  /** The user's level, where it comes from and what it allows. */
  view(userId: string): PrivacySettingsView {
    const { policy } = this.deps;
    const level = policy.levelOf(userId);
    const allowance = allowanceOf(level);
    return {
      user_id: userId,
      tracking_level: level,
      source: policy.storedLevel(userId) === undefined ? 'default' : 'user',
      default_tracking_level: policy.defaultLevel,
      stores_interactions: allowance.storeInteractions,
      stores_event_rows: allowance.storeEventRows,
      stores_aggregate_counts: allowance.storeAggregateCounts,
      enrolled_in_experiments: allowance.enrolInExperiments,
      retention_days: allowance.retentionDays,
    };
  }

  /** Stores the user's level and erases what it may not keep (see the file's comment). */
  async changeLevel(userId: string, level: TrackingLevel): Promise<PrivacySettingsView & { erased: ErasureReport | null }> {
    const { policy, erasure } = this.deps;
    return erasure.queue.run(userId, async () => {
      await policy.setLevel(userId, level);
      const erased = level === 'full' ? null : await erasure.eraseForLevel(userId, level === 'none' ? 'tracking' : 'events');
      return { ...this.view(userId), erased };
    });
  }

  /** Everything held about the user, as one document: every table's rows of the raw id or the pseudonym, and the other features' parts. */
  async exportUser(userId: string): Promise<PrivacyExport> {
    const { db, policy } = this.deps;
    const pseudonym = policy.pseudonym(userId);
    const keys = [userId, pseudonym];
    const userTables = await findUserTables(db);
    // One transaction: one consistent snapshot of every table.
    const tables = await db.transaction().execute(async (trx) => {
      const rows: Record<string, Record<string, unknown>[]> = {};
      for (const table of userTables) rows[table.name] = await selectUserRows(trx, table, keys);
      for (const part of this.deps.userData ?? []) Object.assign(rows, await part.exportRows?.(trx, keys));
      return rows;
    });
    return {
      user_id: userId,
      pseudonym,
      exported_at: new Date((this.deps.now ?? Date.now)()).toISOString(),
      privacy: this.view(userId),
      tables,
    };
  }
}

/**
 * Retention: purges stored rows older than their user's tracking level keeps them
 * (src/privacy/tracking-level.ts: `full` 365 days, `limited` 90, `none` nothing), from the
 * interactions, feedback and the event-level analytics tables (events, A/B and interleaved impressions). Users who never chose a level
 * are at the deployment's default. Analytics rows are found by pseudonym (or the raw id,
 * for rows written before pseudonymisation). The learned affinities and interest vectors
 * are decayed summaries, not rows of events: they stay.
 *
 * Rows go in batches of PURGE_BATCH (a batch is one short write transaction, so writers wait
 * for one batch at most), oldest first by table; a stopped service aborts between batches.
 */
import { sql, type Kysely } from 'kysely';
import { allowanceOf, type TrackingLevel } from '../../src/privacy/tracking-level.js';
import type { Database } from '../platform/db/database.js';
import type { PrivacyPolicyService } from './privacy-policy.service.js';
import { listTrackingLevels } from './privacy.repository.js';
import { schemaTables } from '../platform/db/schema-tables.js';
import type { Agent } from '../platform/agents/agent.types.js';

/** Each table with a user's dated rows, and the column that dates them (epoch ms). */
export const RETAINED_TABLES: ReadonlyArray<{ table: string; at: string }> = [
  { table: 'interactions', at: 'created_at_ms' },
  { table: 'feedback', at: 'created_at_ms' },
  { table: 'analytics_events', at: 'received_at_ms' },
  { table: 'experiment_impressions', at: 'served_at_ms' },
  { table: 'interleaving_impressions', at: 'served_at_ms' },
  // Kept counts split by day (migration 0025), dated by their UTC day: the history goes, the totals stay.
  { table: 'experiment_user_day_counts', at: 'day_ms' },
];

const DAY_MS = 86_400_000;
const PURGE_BATCH = 5_000;
const KEYS_PER_STATEMENT = 400;

export interface RetentionDeps {
  db: Kysely<Database>;
  policy: Pick<PrivacyPolicyService, 'defaultLevel' | 'pseudonym'>;
  intervalSeconds: number;
}

/** Rows dated before this are past the level's retention (everything for a 0-day level); undefined: kept forever. */
export function retentionCutoff(level: TrackingLevel, nowMs: number): number | undefined {
  const days = allowanceOf(level).retentionDays;
  if (days === null) return undefined;
  return days === 0 ? Number.MAX_SAFE_INTEGER : nowMs - days * DAY_MS;
}

/** The retention agent (see the file's comment). */
export function retentionAgent(deps: RetentionDeps): Agent {
  return {
    name: 'retention',
    description: "purges interactions, feedback and analytics rows older than their user's tracking level keeps them",
    intervalSeconds: deps.intervalSeconds,
    // Deletes shared rows.
    scope: 'cluster',
    async run({ now, signal }) {
      const purged = await purgeExpiredRows(deps, now(), signal);
      const total = Object.values(purged).reduce((sum, n) => sum + n, 0);
      return {
        summary: `purged ${total} rows past their retention (${Object.entries(purged)
          .map(([table, n]) => `${table} ${n}`)
          .join(', ')})`,
        details: { rows_purged: total, ...purged },
      };
    },
  };
}

/** Deletes every row past its user's retention; rows deleted per table. */
export async function purgeExpiredRows(deps: RetentionDeps, nowMs: number, signal?: AbortSignal): Promise<Record<string, number>> {
  const { db, policy } = deps;
  const defaultCutoff = retentionCutoff(policy.defaultLevel, nowMs);
  const byLevel = new Map<TrackingLevel, string[]>();
  // Users kept longer than the default: the default's purge must pass them by.
  const protectedKeys = new Set<string>();
  for (const row of await listTrackingLevels(db)) {
    const level = row.tracking_level as TrackingLevel;
    const keys = [row.user_id, policy.pseudonym(row.user_id)];
    if (level !== policy.defaultLevel) byLevel.set(level, [...(byLevel.get(level) ?? []), ...keys]);
    const cutoff = retentionCutoff(level, nowMs);
    if (defaultCutoff !== undefined && (cutoff === undefined || cutoff < defaultCutoff)) for (const key of keys) protectedKeys.add(key);
  }
  const purged: Record<string, number> = {};
  // A table a later migration adds is skipped until that migration ran.
  const existing = new Set((await schemaTables(db)).map((table) => table.name));
  for (const { table, at } of RETAINED_TABLES) {
    if (!existing.has(table)) continue;
    let rows = 0;
    for (const [level, keys] of byLevel) {
      const cutoff = retentionCutoff(level, nowMs);
      if (cutoff === undefined) continue;
      for (let i = 0; i < keys.length; i += KEYS_PER_STATEMENT) {
        rows += await purgeBatches(db, table, at, cutoff, { only: keys.slice(i, i + KEYS_PER_STATEMENT) }, signal);
      }
    }
    if (defaultCutoff !== undefined) rows += await purgeDefault(db, table, at, defaultCutoff, protectedKeys, signal);
    purged[table] = rows;
  }
  return purged;
}

/** Rows past the default's cutoff, except those of protected users. */
async function purgeDefault(
  db: Kysely<Database>,
  table: string,
  at: string,
  cutoff: number,
  protectedKeys: ReadonlySet<string>,
  signal?: AbortSignal,
): Promise<number> {
  if (protectedKeys.size === 0) return purgeBatches(db, table, at, cutoff, {}, signal);
  const owners = await sql<{ user_id: string }>`SELECT DISTINCT user_id FROM ${sql.table(table)} WHERE ${sql.ref(at)} < ${cutoff}`.execute(
    db,
  );
  const keys = owners.rows.map((row) => row.user_id).filter((key) => !protectedKeys.has(key));
  let rows = 0;
  for (let i = 0; i < keys.length; i += KEYS_PER_STATEMENT) {
    rows += await purgeBatches(db, table, at, cutoff, { only: keys.slice(i, i + KEYS_PER_STATEMENT) }, signal);
  }
  return rows;
}

/** Deletes rows dated before `cutoff` (of `only` users when given), PURGE_BATCH per statement. */
async function purgeBatches(
  db: Kysely<Database>,
  table: string,
  at: string,
  cutoff: number,
  filter: { only?: readonly string[] },
  signal?: AbortSignal,
): Promise<number> {
  const users = filter.only === undefined ? sql`` : sql` AND user_id IN (${sql.join(filter.only)})`;
  let total = 0;
  for (;;) {
    signal?.throwIfAborted();
    const result = await sql`DELETE FROM ${sql.table(table)} WHERE id IN (
      SELECT id FROM ${sql.table(table)} WHERE ${sql.ref(at)} < ${cutoff}${users} LIMIT ${PURGE_BATCH})`.execute(db);
    const deleted = Number(result.numAffectedRows ?? 0n);
    total += deleted;
    if (deleted < PURGE_BATCH) return total;
  }
}

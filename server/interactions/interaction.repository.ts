/** SQL for interactions and learned affinities. */
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import { CONTEXT_BOUNDS } from '../../src/schemas/bounded-json.js';
import { bulkInsert } from '../db/bulk-insert.js';
import type { Database } from '../db/database.js';
import { isForeignKeyViolation } from '../db/errors.js';
import { asFloat, greatest, power } from '../db/portable-sql.js';
import { queryTemplate } from '../db/precompiled-query.js';
import type { InteractionsTable, UserAffinitiesTable } from './interactions.tables.js';

export type InteractionRow = Selectable<InteractionsTable>;
export type AffinityRow = Selectable<UserAffinitiesTable>;

const INSERT_COLUMNS = ['id', 'user_id', 'post_id', 'action_type', 'context_json', 'created_at', 'created_at_ms'] as const;

const insertInteractionQuery = queryTemplate((db: Kysely<Database>, args) =>
  db
    .insertInto('interactions')
    .values(Object.fromEntries(INSERT_COLUMNS.map((c, i) => [c, args[i]])) as Insertable<InteractionsTable>)
    .onConflict((oc) => oc.columns(['user_id', 'post_id', 'action_type']).doNothing()),
);

/**
 * Inserts an interaction unless (user, post, action) exists. The post's foreign key
 * answers whether the post exists, so the write path needs no lookup first.
 */
export async function insertInteraction(
  db: Kysely<Database>,
  row: Insertable<InteractionsTable>,
): Promise<'inserted' | 'exists' | 'no-post'> {
  try {
    const result = await insertInteractionQuery(
      db,
      INSERT_COLUMNS.map((c) => row[c] ?? null),
    );
    return Number(result.numAffectedRows ?? 0n) > 0 ? 'inserted' : 'exists';
  } catch (error) {
    if (isForeignKeyViolation(error)) return 'no-post';
    throw error;
  }
}

/** Inserts interactions in multi-row statements (a bulk load: a duplicate is an error, not skipped). */
export async function insertInteractions(db: Kysely<Database>, rows: readonly Insertable<InteractionsTable>[]): Promise<void> {
  await bulkInsert(
    db,
    'interactions',
    INSERT_COLUMNS,
    rows.map((row) => INSERT_COLUMNS.map((c) => row[c] ?? null)),
  );
}

/** Inserts affinities in multi-row statements (a bulk load into a database holding none of these users' affinities). */
export async function insertAffinities(db: Kysely<Database>, rows: readonly AffinityRow[]): Promise<void> {
  await bulkInsert(
    db,
    'user_affinities',
    AFFINITY_COLUMNS,
    rows.map((row) => AFFINITY_COLUMNS.map((c) => row[c])),
  );
}

const AFFINITY_COLUMNS = ['user_id', 'kind', 'target', 'score', 'as_of_ms'] as const;

/**
 * The columns of a row as read back. A context longer (in characters, so certainly in bytes)
 * than the bound can only predate it and is not read at all: a page of such rows once cost
 * hundreds of megabytes. `length` counts characters in SQLite and PostgreSQL alike.
 */
const READ_COLUMNS = [
  'id',
  'user_id',
  'post_id',
  'action_type',
  sql<string | null>`CASE WHEN length(context_json) > ${CONTEXT_BOUNDS.maxBytes} THEN NULL ELSE context_json END`.as('context_json'),
  'created_at',
  'created_at_ms',
] as const;

/** The interaction of (user, post, action), if any. */
export async function findInteraction(
  db: Kysely<Database>,
  userId: string,
  postId: string,
  actionType: string,
): Promise<InteractionRow | undefined> {
  return db
    .selectFrom('interactions')
    .select(READ_COLUMNS)
    .where('user_id', '=', userId)
    .where('post_id', '=', postId)
    .where('action_type', '=', actionType)
    .executeTakeFirst();
}

/** The interaction with this id, if any. */
export async function findInteractionById(db: Kysely<Database>, id: string): Promise<InteractionRow | undefined> {
  return db.selectFrom('interactions').select(READ_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** Deletes an interaction; true when it existed. */
export async function deleteInteraction(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('interactions').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A user's interactions, newest first, older than `maxId` when given. */
export async function listUserInteractions(
  db: Kysely<Database>,
  userId: string,
  options: { actionType?: string; maxId?: string; limit: number },
): Promise<InteractionRow[]> {
  let query = db.selectFrom('interactions').select(READ_COLUMNS).where('user_id', '=', userId);
  if (options.actionType !== undefined) query = query.where('action_type', '=', options.actionType);
  if (options.maxId !== undefined) query = query.where('id', '<', options.maxId);
  return query.orderBy('id', 'desc').limit(options.limit).execute();
}

/** All of a user's interactions, oldest first (for building a profile, which needs no context). */
export async function allUserInteractions(
  db: Kysely<Database>,
  userId: string,
): Promise<Pick<InteractionRow, 'post_id' | 'action_type' | 'created_at_ms'>[]> {
  return db
    .selectFrom('interactions')
    .select(['post_id', 'action_type', 'created_at_ms'])
    .where('user_id', '=', userId)
    .orderBy('created_at_ms')
    .orderBy('id')
    .execute();
}

/** A user's stored affinities (one indexed read: the table is clustered by user). */
export async function userAffinities(db: Kysely<Database>, userId: string): Promise<Selectable<UserAffinitiesTable>[]> {
  return db.selectFrom('user_affinities').selectAll().where('user_id', '=', userId).execute();
}

export interface AffinityChange {
  kind: 'author' | 'tag';
  target: string;
  amount: number;
}

/**
 * Adds time-decayed amounts to a user's affinities: the stored value decays to the later
 * of the two instants (half-life `halfLifeMs`) before the amount (decayed likewise) is added.
 */
export async function addAffinities(
  db: Kysely<Database>,
  userId: string,
  changes: readonly AffinityChange[],
  atMs: number,
  halfLifeMs: number,
): Promise<void> {
  if (changes.length === 0) return;
  await addAffinitiesQuery(db, [userId, atMs, halfLifeMs, ...changes.flatMap((c) => [c.kind, c.target, c.amount])]);
}

const OLD_SCORE = sql.ref('user_affinities.score');
const OLD_AS_OF = sql.ref('user_affinities.as_of_ms');
const NEW_SCORE = sql.ref('excluded.score');
const NEW_AS_OF = sql.ref('excluded.as_of_ms');

/** Arguments: user id, instant, half-life, then kind, target and amount of each change (compiled per row count). */
const addAffinitiesQuery = queryTemplate((db: Kysely<Database>, args) => {
  const [userId, atMs, halfLifeMs] = args as [string, number, number];
  const rows = [];
  for (let i = 3; i < args.length; i += 3) {
    rows.push({ user_id: userId, kind: args[i] as string, target: args[i + 1] as string, score: args[i + 2] as number, as_of_ms: atMs });
  }
  return db
    .insertInto('user_affinities')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['user_id', 'kind', 'target']).doUpdateSet({
        // The stored value decays to the later of the two instants before the new amount
        // (decayed likewise) is added: half-life `halfLifeMs`.
        score: sql<number>`CASE WHEN ${NEW_AS_OF} >= ${OLD_AS_OF}
          THEN ${OLD_SCORE} * ${power(2, sql`-(${NEW_AS_OF} - ${OLD_AS_OF}) / ${asFloat(halfLifeMs)}`)} + ${NEW_SCORE}
          ELSE ${OLD_SCORE} + ${NEW_SCORE} * ${power(2, sql`-(${OLD_AS_OF} - ${NEW_AS_OF}) / ${asFloat(halfLifeMs)}`)} END`,
        as_of_ms: greatest(OLD_AS_OF, NEW_AS_OF),
      }),
    );
});

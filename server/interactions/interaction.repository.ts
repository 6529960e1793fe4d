/** SQL for interactions and learned affinities. */
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import { CONTEXT_BOUNDS } from '../../src/schemas/bounded-json.js';
import { bulkInsert, bulkInsertObjects } from '../platform/db/bulk-insert.js';
import type { Database } from '../platform/db/database.js';
import { isForeignKeyViolation } from '../platform/db/errors.js';
import { jsonRows, jsonValues, parseJsonRows } from '../platform/db/json-rows.js';
import { asFloat, greatest, power } from '../platform/db/portable-sql.js';
import { queryTemplate } from '../platform/db/precompiled-query.js';
import type { UserColumns } from '../platform/db/user-columns.js';
import type { StoredAffinity, StoredDecayedSums } from '../../src/ranking/index.js';
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
  await bulkInsertObjects(db, 'interactions', INSERT_COLUMNS, rows);
}

/** Inserts affinities in multi-row statements (a bulk load into a database holding none of these users' affinities). */
export async function insertAffinities(db: Kysely<Database>, rows: readonly AffinityRow[]): Promise<void> {
  await bulkInsertObjects(db, 'user_affinities', AFFINITY_COLUMNS, rows);
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

/**
 * A user's stored affinities (one indexed read: the table is clustered by user), without the
 * user's id on every row, aggregated into one JSON value (a first request's hottest read).
 */
export async function userAffinities(db: Kysely<Database>, userId: string): Promise<Omit<AffinityRow, 'user_id'>[]> {
  const { rows } = await userAffinitiesQuery(db, [userId]);
  return parseJsonRows<[string, string, number, number]>(rows[0]?.rows).map(([kind, target, score, asOfMs]) => ({
    kind,
    target,
    score,
    as_of_ms: asOfMs,
  }));
}

const userAffinitiesQuery = queryTemplate((db: Kysely<Database>, args) =>
  db
    .selectFrom('user_affinities')
    .select(jsonRows(db, ['kind', 'target', 'score', 'as_of_ms']).as('rows'))
    .where('user_id', '=', args[0] as string),
);

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

/** The favourites and reblogs of the posts created since `sinceMs`: one row per post and user, with when it did each (null: did not). */
export async function postEngagementRows(
  db: Kysely<Database>,
  sinceMs: number,
): Promise<{ post_id: string; user_id: string; favourited_at_ms: number | string | null; reblogged_at_ms: number | string | null }[]> {
  const at = (action: string) =>
    sql<
      number | null
    >`MIN(CASE WHEN ${sql.ref('interactions.action_type')} = ${sql.lit(action)} THEN ${sql.ref('interactions.created_at_ms')} END)`;
  return db
    .selectFrom('interactions')
    .select(['interactions.post_id', 'interactions.user_id', at('favorite').as('favourited_at_ms'), at('reblog').as('reblogged_at_ms')])
    .where('interactions.post_id', 'in', (eb) => eb.selectFrom('posts').select('posts.id').where('posts.created_at_ms', '>=', sinceMs))
    .where('interactions.action_type', 'in', ['favorite', 'reblog'])
    .groupBy(['interactions.post_id', 'interactions.user_id'])
    .execute();
}

/**
 * When the service first saw each user who favourited or reblogged a post created since
 * `sinceMs` act: its oldest stored interaction (one grouped read of the (user, time) index).
 */
export async function engagerFirstSeenRows(
  db: Kysely<Database>,
  sinceMs: number,
): Promise<{ user_id: string; first_ms: number | string }[]> {
  return db
    .selectFrom('interactions')
    .select(['interactions.user_id', (eb) => eb.fn.min('interactions.created_at_ms').as('first_ms')])
    .where('interactions.user_id', 'in', (eb) =>
      eb
        .selectFrom('interactions as engaged')
        .select('engaged.user_id')
        .where('engaged.post_id', 'in', (inner) => inner.selectFrom('posts').select('posts.id').where('posts.created_at_ms', '>=', sinceMs))
        .where('engaged.action_type', 'in', ['favorite', 'reblog']),
    )
    .groupBy('interactions.user_id')
    .execute();
}

/** Deletes every user's affinity to an author (its consent is gone); the users who had one. */
export async function deleteAuthorAffinities(db: Kysely<Database>, accountId: string): Promise<string[]> {
  const rows = await db
    .deleteFrom('user_affinities')
    .where('kind', '=', 'author')
    .where('target', '=', accountId)
    .returning('user_id')
    .execute();
  return rows.map((row) => row.user_id);
}

/** The posts of a user's live interactions (a covering read of the (user, post, action) key: no table rows), as one JSON value. */
export async function userInteractionPostIds(db: Kysely<Database>, userId: string): Promise<string[]> {
  const { rows } = await userPostIdsQuery(db, [userId]);
  return parseJsonRows<string>(rows[0]?.post_ids);
}

const userPostIdsQuery = queryTemplate((db: Kysely<Database>, args) =>
  db
    .selectFrom('interactions')
    .select(jsonValues(db, 'post_id').as('post_ids'))
    .where('user_id', '=', args[0] as string),
);

/**
 * A user's stored interest vector, if they have one; with `keysJson`, the stored JSON of its
 * keys comes with it (for a writer, which stores it again extended: not for a vector kept in
 * memory, where it would be held beside the keys).
 */
export async function findInterest(
  db: Kysely<Database>,
  userId: string,
  options: { keysJson?: boolean } = {},
): Promise<StoredDecayedSums | undefined> {
  const { rows } = await findInterestQuery(db, [userId]);
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    refMs: Number(row.ref_ms),
    latestMs: Number(row.latest_ms),
    keys: JSON.parse(row.terms) as string[],
    values: decodeWeights(row.weights),
    ...(options.keysJson === true ? { keysJson: row.terms } : {}),
  };
}

const findInterestQuery = queryTemplate((db: Kysely<Database>, args) =>
  db
    .selectFrom('user_interests')
    .select(['ref_ms', 'latest_ms', 'terms', 'weights'])
    .where('user_id', '=', args[0] as string),
);

/** A user's stored signals: what their profile is restored from (with the posts they engaged with). */
export interface StoredSignals {
  affinities: StoredAffinity[];
  interest: StoredDecayedSums | undefined;
  /** The post of each live interaction (one id per interaction). */
  interactedPostIds: string[];
}

/**
 * The three reads of a user's stored signals (affinities, interest vector, the posts of their
 * interactions) as scalar subqueries for a per-user statement (server/platform/db/user-columns.ts):
 * the same indexed reads as `userAffinities`, `findInterest` and `userInteractionPostIds`, the
 * vector's row in four (a blob does not fit in a JSON value; each is one seek of its key).
 */
export const storedSignalColumns: UserColumns<StoredSignals> = {
  columns: (db, userId) => {
    const interest = (column: 'ref_ms' | 'latest_ms' | 'terms' | 'weights') =>
      db.selectFrom('user_interests').select(column).where('user_id', '=', userId);
    return [
      db
        .selectFrom('user_affinities')
        .select(jsonRows(db, ['kind', 'target', 'score', 'as_of_ms']).as('rows'))
        .where('user_id', '=', userId)
        .as('signal_affinities'),
      db.selectFrom('interactions').select(jsonValues(db, 'post_id').as('post_ids')).where('user_id', '=', userId).as('signal_post_ids'),
      interest('ref_ms').as('signal_ref_ms'),
      interest('latest_ms').as('signal_latest_ms'),
      interest('terms').as('signal_terms'),
      interest('weights').as('signal_weights'),
    ];
  },
  read: (row) => ({
    // Straight from the aggregate's tuples to the engine's shape: no row object in between.
    affinities: parseJsonRows<[string, string, number, number]>(row.signal_affinities).map(([kind, target, score, asOfMs]) => ({
      kind: kind === 'author' ? 'author' : 'tag',
      target,
      score,
      asOfMs,
    })),
    // ref_ms is never null in a stored row: null is no row.
    interest:
      row.signal_ref_ms === null || row.signal_ref_ms === undefined
        ? undefined
        : {
            refMs: Number(row.signal_ref_ms),
            latestMs: Number(row.signal_latest_ms),
            keys: JSON.parse(row.signal_terms as string) as string[],
            values: decodeWeights(row.signal_weights as Uint8Array),
          },
    interactedPostIds: parseJsonRows<string>(row.signal_post_ids),
  }),
};

/** Inserts or replaces a user's interest vector. */
export async function saveInterest(db: Kysely<Database>, userId: string, interest: StoredDecayedSums): Promise<void> {
  await saveInterestQuery(db, interestRow(userId, interest));
}

const saveInterestQuery = queryTemplate((db: Kysely<Database>, args) => {
  const [user_id, ref_ms, latest_ms, terms, weights] = args as [string, number, number, string, Uint8Array];
  return db
    .insertInto('user_interests')
    .values({ user_id, ref_ms, latest_ms, terms, weights })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        ref_ms: (eb) => eb.ref('excluded.ref_ms'),
        latest_ms: (eb) => eb.ref('excluded.latest_ms'),
        terms: (eb) => eb.ref('excluded.terms'),
        weights: (eb) => eb.ref('excluded.weights'),
      }),
    );
});

/** Inserts interest vectors in multi-row statements (a bulk load of users holding none). */
export async function insertInterests(db: Kysely<Database>, interests: ReadonlyMap<string, StoredDecayedSums>): Promise<void> {
  await bulkInsert(
    db,
    'user_interests',
    ['user_id', 'ref_ms', 'latest_ms', 'terms', 'weights'],
    Array.from(interests, ([userId, interest]) => interestRow(userId, interest)),
  );
}

function interestRow(userId: string, interest: StoredDecayedSums): [string, number, number, string, Uint8Array] {
  return [userId, interest.refMs, interest.latestMs, interest.keysJson ?? JSON.stringify(interest.keys), encodeWeights(interest.values)];
}

/** Whether this machine stores numbers little-endian, as the weights are stored (then no byte swapping is needed). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Float64s as little-endian bytes (the same on every machine sharing a database). */
function encodeWeights(values: Float64Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat64(i * 8, values[i]!, true);
  return bytes;
}

function decodeWeights(bytes: Uint8Array): Float64Array {
  // A blob in a memory block of its own (better-sqlite3's, not a slice of a shared pool) is viewed
  // as it is, with no copy: nothing else can see the block the vector is then changed in.
  if (LITTLE_ENDIAN && bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength && bytes.byteLength % 8 === 0) {
    return new Float64Array(bytes.buffer, 0, bytes.byteLength >> 3);
  }
  const values = new Float64Array(bytes.byteLength >> 3);
  if (LITTLE_ENDIAN) {
    new Uint8Array(values.buffer).set(bytes.subarray(0, values.length * 8));
    return values;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < values.length; i++) values[i] = view.getFloat64(i * 8, true);
  return values;
}

/** Whether any interest vector is stored. */
export async function hasInterests(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('user_interests').select('user_id').limit(1).executeTakeFirst()) !== undefined;
}

/** Every user with at least one live interaction (a walk of the (user, post, action) key). */
export async function interactingUsers(db: Kysely<Database>): Promise<string[]> {
  return (await db.selectFrom('interactions').select('user_id').distinct().orderBy('user_id').execute()).map((r) => r.user_id);
}

/**
 * The users with the most interactions among the newest `recent` ones, busiest first (ties
 * by user id). Newest by id: an interaction's id is its creation time in milliseconds
 * shifted left 16 bits plus a sequence (generatePostId), so its primary key is in time order
 * and the tail is read backwards through that index on SQLite and PostgreSQL alike, a
 * bounded scan (ids are 18 digits from 2018 to 2445, so text order is number order).
 */
export async function mostActiveRecentUsers(db: Kysely<Database>, recent: number, limit: number): Promise<string[]> {
  const newest = db.selectFrom('interactions').select('user_id').orderBy('id', 'desc').limit(recent).as('newest');
  const rows = await db
    .selectFrom(newest)
    .select('newest.user_id')
    .groupBy('newest.user_id')
    .orderBy((eb) => eb.fn.countAll(), 'desc')
    .orderBy('newest.user_id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.user_id);
}

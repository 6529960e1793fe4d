/**
 * Bulk loads into the interactions tables (demo seeding, benchmarks): the interactions and
 * what each live interaction also writes (post counters, stored affinities, interest
 * vectors), for millions of rows. Users and posts become indexes into typed arrays, the
 * interest vectors are computed in a worker thread while this thread writes the rows, and
 * the post_id index is built after the load by one sort.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import { NotFoundError } from '../../src/errors.js';
import {
  AFFINITY_HALF_LIFE_MS,
  DEFAULT_CANDIDATE_INDEX_OPTIONS,
  INTERACTION_STRENGTH,
  interestTerms,
  type EngagedPost,
  type InteractionAction,
  type StoredDecayedSums,
  type TermWeigher,
} from '../../src/ranking/index.js';
import { bulkInsertFilled, withIndexesBuiltAfter } from '../platform/db/bulk-insert.js';
import { insertFromStaging, isoStrings, stageTable, type StagedColumn, type StagingDatabase } from '../platform/db/bulk-staging.js';
import type { Database } from '../platform/db/database.js';
import { addPostCounts, candidatePosts, engagedPosts, type CountDeltas } from '../posts/post.service.js';
import { candidatePool } from '../ranking-state/ranking-state.service.js';
import { interestRows, storedInterest, type InterestLoad, type InterestRows } from './interest-vectors.js';
import * as repo from './interaction.repository.js';

/** An interaction of a bulk load (demo data, benchmarks), with the id and time it was made. */
export interface ImportedInteraction {
  id: string;
  userId: string;
  postId: string;
  action: InteractionAction;
  createdAtMs: number;
}

/**
 * Runs `load` (inserts of interactions, inside the caller's transaction); into an empty table,
 * without the post_id and user-time indexes, built afterwards by one sort instead of a random b-tree insert
 * per row (loading 2 million rows, about 4 s of 27 s of CPU). The rows and the schema end
 * up as a load with the index would leave them.
 */
export async function loadInteractions<T>(trx: Kysely<Database>, load: () => Promise<T>): Promise<T> {
  const empty = (await trx.selectFrom('interactions').select('id').limit(1).executeTakeFirst()) === undefined;
  return empty ? withIndexesBuiltAfter(trx, 'interactions', ['interactions_post_id', 'interactions_user_time'], load) : load();
}

export interface BulkLoadOptions {
  /** Weighs the interest terms; by default the pool a server would load from the database now (default pool bounds). */
  weigher?: TermWeigher;
  /**
   * The compiled worker computing the interest vectors; null computes them on this thread.
   * By default interest-vectors.worker.js next to this module, when it exists (the built
   * service; not when running from sources) and the load has WORKER_MIN_INTERACTIONS or more.
   */
  workerScript?: URL | null;
  /**
   * A staging file attached to the transaction's connection (withStagingDatabase, SQLite): the
   * interactions table is then built there by a worker thread while this thread writes the
   * rest, and copied into the (empty) table at the end (see bulk-staging.ts).
   */
  staging?: StagingDatabase;
  /**
   * The compiled staging worker; null inserts on this thread. By default bulk-staging.worker.js
   * of server/platform/db, when it exists and the load has WORKER_MIN_INTERACTIONS or more.
   */
  stagingWorkerScript?: URL | null;
}

/** Below this many interactions the worker's start costs more than it saves. */
const WORKER_MIN_INTERACTIONS = 20_000;

const DEFAULT_WORKER_SCRIPT = new URL('./interest-vectors.worker.js', import.meta.url);
const DEFAULT_STAGING_SCRIPT = new URL('../platform/db/bulk-staging.worker.js', import.meta.url);

const COUNTERS: readonly (keyof CountDeltas)[] = ['favourites', 'reblogs', 'bookmarks'];
const ACTION_COUNTER: Readonly<Record<InteractionAction, number>> = { favorite: 0, reblog: 1, bookmark: 2 };
/** Each action at its ACTION_COUNTER index (the staged column's dictionary). */
const ACTIONS: readonly InteractionAction[] = (Object.keys(ACTION_COUNTER) as InteractionAction[]).sort(
  (a, b) => ACTION_COUNTER[a] - ACTION_COUNTER[b],
);

/**
 * Loads interactions made in the past, inside the caller's transaction, with what each live
 * interaction also writes: the posts' counters, the users' stored affinities, decayed to
 * `asOfMs` (each summed in the order given), and their interest vectors (each interaction's
 * terms added in time order, as live writes would have). For a database holding none of
 * these users' interactions: multi-row inserts, no per-row lookups. A post that does not
 * exist is a NotFoundError before anything is written. The caller reloads the ranking
 * state after its commit.
 */
export async function bulkLoadInteractions(
  trx: Kysely<Database>,
  interactions: readonly ImportedInteraction[],
  asOfMs: number,
  options: BulkLoadOptions = {},
): Promise<void> {
  const load = await startBulkLoad(trx, interactions, options);
  await load.finish(asOfMs);
}

/** A bulk load started by startBulkLoad: `finish` writes it (once), `cancel` drops it. */
export interface StartedBulkLoad {
  finish(asOfMs: number): Promise<void>;
  cancel(): Promise<void>;
}

/**
 * bulkLoadInteractions in two steps, for a caller with other rows to write in the same
 * transaction meanwhile (demo seeding: the posts the interactions refer to): with a staging
 * file, its worker starts building the interactions table now. The posts must be written
 * before `finish`; a caller failing before it calls `cancel`.
 */
export async function startBulkLoad(
  trx: Kysely<Database>,
  interactions: readonly ImportedInteraction[],
  options: BulkLoadOptions = {},
): Promise<StartedBulkLoad> {
  const ids = indexed(interactions);
  const byTime = timeOrder(interactions);
  const staged = await startStaging(trx, interactions, ids, byTime, options);
  return {
    finish: async (asOfMs) => {
      try {
        await loadWith(trx, interactions, ids, byTime, staged, asOfMs, options);
      } finally {
        await staged?.stop();
      }
    },
    cancel: async () => await staged?.stop(),
  };
}

async function loadWith(
  trx: Kysely<Database>,
  interactions: readonly ImportedInteraction[],
  ids: Indexed,
  byTime: Uint32Array,
  staged: Staged | undefined,
  asOfMs: number,
  options: BulkLoadOptions,
): Promise<void> {
  const posts = await engagedPosts(trx, ids.postIds);
  const missing = ids.postIds.find((id) => !posts.has(id));
  if (missing !== undefined) throw new NotFoundError(`No post with id ${missing}`);
  const postList = ids.postIds.map((id) => posts.get(id) as EngagedPost);
  const { maxRecent, maxPopular } = DEFAULT_CANDIDATE_INDEX_OPTIONS;
  const weigher = options.weigher ?? candidatePool(await candidatePosts(trx, { recent: maxRecent, popular: maxPopular }));
  const load = interestLoad(interactions, ids, postList, weigher, byTime);
  const script = workerScriptFor(interactions.length, options.workerScript, DEFAULT_WORKER_SCRIPT);
  const worker = script === null ? undefined : inWorker(script, load);
  try {
    if (!staged) await loadInteractions(trx, () => insertInTimeOrder(trx, interactions, byTime));
    await addPostCounts(trx, postCounts(interactions, ids));
    await insertAffinities(trx, affinities(interactions, ids, postList, asOfMs), asOfMs);
    if (staged) await copyStaged(trx, staged, interactions.length);
    const vectors = worker ? await worker.rows : interestRows(load);
    const stored = new Map<string, StoredDecayedSums>();
    vectors.users.forEach((userId, k) => stored.set(userId, storedInterest(vectors, k)));
    await repo.insertInterests(trx, stored);
  } finally {
    await worker?.stop();
  }
}

interface Staged {
  readonly staging: StagingDatabase;
  readonly built: Promise<void>;
  readonly stop: () => Promise<void>;
}

/**
 * Starts building the interactions table in the staging file (rows in time order), when the
 * load has one and the table is empty (SQLite copies whole b-trees only into an empty table).
 */
async function startStaging(
  trx: Kysely<Database>,
  interactions: readonly ImportedInteraction[],
  ids: Indexed,
  byTime: Uint32Array,
  options: BulkLoadOptions,
): Promise<Staged | undefined> {
  const script = workerScriptFor(interactions.length, options.stagingWorkerScript, DEFAULT_STAGING_SCRIPT);
  if (options.staging === undefined || script === null) return undefined;
  if ((await trx.selectFrom('interactions').select('id').limit(1).executeTakeFirst()) !== undefined) return undefined;
  const n = interactions.length;
  const ends = new Int32Array(n);
  const action = new Int32Array(n);
  const ms = new Float64Array(n);
  let end = 0;
  for (let k = 0; k < n; k++) {
    const i = interactions[k] as ImportedInteraction;
    ends[k] = end += i.id.length;
    action[k] = ACTION_COUNTER[i.action];
    ms[k] = i.createdAtMs;
  }
  const values: StagedColumn[] = [
    { kind: 'packed', text: interactions.map((i) => i.id).join(''), ends },
    { kind: 'strings', dictionary: ids.users, index: ids.user },
    { kind: 'strings', dictionary: ids.postIds, index: ids.post },
    { kind: 'strings', dictionary: ACTIONS, index: action },
    { kind: 'null' },
    { kind: 'isoTimes', ms },
    { kind: 'numbers', values: ms },
  ];
  const worker = await stageTable(trx, options.staging, script, 'interactions', INTERACTION_COLUMNS, values, byTime);
  return { staging: options.staging, ...worker };
}

/** Copies the staged interactions into the table, once the worker has built them. */
async function copyStaged(trx: Kysely<Database>, staged: Staged, expected: number): Promise<void> {
  await staged.built;
  const copied = await insertFromStaging(trx, staged.staging, 'interactions');
  if (copied !== expected) throw new Error(`bulk load: ${copied} of ${expected} interactions copied from the staging table`);
}

/** Users and posts as indexes (in order of first appearance), and each interaction's. */
interface Indexed {
  readonly users: string[];
  readonly postIds: string[];
  readonly user: Int32Array;
  readonly post: Int32Array;
}

function indexed(interactions: readonly ImportedInteraction[]): Indexed {
  const userIndex = new Map<string, number>();
  const postIndex = new Map<string, number>();
  const users: string[] = [];
  const postIds: string[] = [];
  const user = new Int32Array(interactions.length);
  const post = new Int32Array(interactions.length);
  for (let k = 0; k < interactions.length; k++) {
    const i = interactions[k] as ImportedInteraction;
    let u = userIndex.get(i.userId);
    if (u === undefined) userIndex.set(i.userId, (u = users.push(i.userId) - 1));
    let p = postIndex.get(i.postId);
    if (p === undefined) postIndex.set(i.postId, (p = postIds.push(i.postId) - 1));
    user[k] = u;
    post[k] = p;
  }
  return { users, postIds, user, post };
}

/** What the interest vectors are computed from: each post's unit term vector, the signals in time order. */
function interestLoad(
  interactions: readonly ImportedInteraction[],
  ids: Indexed,
  posts: readonly EngagedPost[],
  weigher: TermWeigher,
  byTime: Uint32Array,
): InterestLoad {
  const termIndex = new Map<string, number>();
  const terms: string[] = [];
  const postTermStart = new Int32Array(posts.length + 1);
  const termIds: number[] = [];
  const termWeights: number[] = [];
  posts.forEach((post, p) => {
    for (const [term, weight] of interestTerms(post, 1, weigher)) {
      let t = termIndex.get(term);
      if (t === undefined) termIndex.set(term, (t = terms.push(term) - 1));
      termIds.push(t);
      termWeights.push(weight);
    }
    postTermStart[p + 1] = termIds.length;
  });
  const signalAmount = new Float64Array(interactions.length);
  const signalAtMs = new Float64Array(interactions.length);
  for (let k = 0; k < interactions.length; k++) {
    const i = interactions[k] as ImportedInteraction;
    signalAmount[k] = INTERACTION_STRENGTH[i.action];
    signalAtMs[k] = i.createdAtMs;
  }
  return {
    terms,
    postTermStart,
    postTermIds: Int32Array.from(termIds),
    postTermWeights: Float64Array.from(termWeights),
    users: ids.users,
    // Copies: the arrays are moved to the worker.
    signalUser: ids.user.slice(),
    signalPost: ids.post.slice(),
    signalAmount,
    signalAtMs,
    timeOrder: byTime.slice(),
  };
}

function workerScriptFor(interactions: number, given: URL | null | undefined, byDefault: URL): URL | null {
  if (given !== undefined) return given;
  return interactions >= WORKER_MIN_INTERACTIONS && existsSync(fileURLToPath(byDefault)) ? byDefault : null;
}

/** The interest vectors computed by a worker thread; `stop` ends it if it still runs. */
function inWorker(script: URL, load: InterestLoad): { rows: Promise<InterestRows>; stop: () => Promise<void> } {
  const transfer = [
    load.postTermStart,
    load.postTermIds,
    load.postTermWeights,
    load.signalUser,
    load.signalPost,
    load.signalAmount,
    load.signalAtMs,
    load.timeOrder,
  ];
  const worker = new Worker(script, { workerData: load, transferList: transfer.map((a) => a.buffer as ArrayBuffer) });
  const rows = new Promise<InterestRows>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`interest vector worker exited (code ${code}) without a result`)));
  });
  // Awaited by the load, or rejected into the void when the load failed first.
  rows.catch(() => undefined);
  return { rows, stop: async () => void (await worker.terminate()) };
}

/** What is ordered by time. */
interface Timed {
  readonly createdAtMs: number;
  readonly id: string;
}

/** The interactions' positions by time, ties by id (see `inTimeOrder`). */
function timeOrder(interactions: readonly Timed[]): Uint32Array {
  const n = interactions.length;
  let min = Infinity;
  let max = -Infinity;
  let integral = true;
  for (const i of interactions) {
    if (i.createdAtMs < min) min = i.createdAtMs;
    if (i.createdAtMs > max) max = i.createdAtMs;
    if (!Number.isInteger(i.createdAtMs)) integral = false;
  }
  // Key: the instant (from the earliest) above the position, in an exact double; sorting a
  // typed array of numbers calls no comparator.
  const scale = 2 ** Math.ceil(Math.log2(n + 1));
  if (!integral || !Number.isSafeInteger((max - min + 1) * scale)) {
    return Uint32Array.from(interactions.map((_, k) => k).sort((a, b) => byTimeThenId(interactions[a] as Timed, interactions[b] as Timed)));
  }
  const keys = new Float64Array(n);
  for (let k = 0; k < n; k++) keys[k] = ((interactions[k] as Timed).createdAtMs - min) * scale + k;
  keys.sort();
  const out = new Uint32Array(n);
  for (let k = 0; k < n; k++) out[k] = (keys[k] as number) % scale;
  // Only interactions at the same instant are compared, by id.
  const at = (k: number): Timed => interactions[out[k] as number] as Timed;
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && at(end).createdAtMs === at(start).createdAtMs) end++;
    if (end - start > 1)
      out.subarray(start, end).set(Array.from(out.subarray(start, end)).sort((a, b) => byTimeThenId(interactions[a]!, interactions[b]!)));
    start = end;
  }
  return out;
}

/**
 * `interactions` by time, ties by id: what sorting a copy with `(a, b) => a.createdAtMs -
 * b.createdAtMs || (a.id < b.id ? -1 : 1)` gives when ids are unique, about five times
 * faster for millions.
 */
export function inTimeOrder<T extends Timed>(interactions: readonly T[]): T[] {
  return Array.from(timeOrder(interactions), (k) => interactions[k] as T);
}

function byTimeThenId(a: Timed, b: Timed): number {
  return a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1);
}

const INTERACTION_COLUMNS = ['id', 'user_id', 'post_id', 'action_type', 'context_json', 'created_at', 'created_at_ms'] as const;

/** Inserts the interactions in time order (row ids then follow time, as live writes leave them). */
async function insertInTimeOrder(trx: Kysely<Database>, interactions: readonly ImportedInteraction[], byTime: Uint32Array): Promise<void> {
  const iso = isoStrings();
  await bulkInsertFilled(trx, 'interactions', INTERACTION_COLUMNS, byTime.length, (r, values, at) => {
    const i = interactions[byTime[r] as number] as ImportedInteraction;
    values[at] = i.id;
    values[at + 1] = i.userId;
    values[at + 2] = i.postId;
    values[at + 3] = i.action;
    values[at + 4] = null;
    values[at + 5] = iso(i.createdAtMs);
    values[at + 6] = i.createdAtMs;
  });
}

/** Each post's counter changes, posts in order of first appearance. */
function postCounts(interactions: readonly ImportedInteraction[], ids: Indexed): Map<string, CountDeltas> {
  const counts = new Int32Array(ids.postIds.length * 3);
  for (let k = 0; k < interactions.length; k++) {
    const at = (ids.post[k] as number) * 3 + ACTION_COUNTER[(interactions[k] as ImportedInteraction).action];
    counts[at] = (counts[at] as number) + 1;
  }
  const out = new Map<string, CountDeltas>();
  ids.postIds.forEach((postId, p) => {
    const delta: CountDeltas = {};
    COUNTERS.forEach((counter, c) => {
      const n = counts[p * 3 + c] as number;
      if (n > 0) delta[counter] = n;
    });
    out.set(postId, delta);
  });
  return out;
}

/** Stored affinities as parallel arrays, rows in (user, kind, target) order. */
interface AffinitySums {
  readonly users: readonly string[];
  readonly kinds: readonly repo.AffinityChange['kind'][];
  readonly targets: readonly string[];
  readonly rowUser: Int32Array;
  readonly rowTarget: Int32Array;
  readonly rowScore: Float64Array;
}

/**
 * Each user's affinity with each author and tag of the posts they interacted with: the
 * signals' amounts decayed to `asOfMs`, summed in the order given (the same sums, to the
 * last bit, as adding them one by one into a map per user).
 */
function affinities(
  interactions: readonly ImportedInteraction[],
  ids: Indexed,
  posts: readonly EngagedPost[],
  asOfMs: number,
): AffinitySums {
  // The affinities a signal about a post moves: its author and each tag (as the live path).
  const targetIndex = new Map<string, number>();
  const kinds: repo.AffinityChange['kind'][] = [];
  const targets: string[] = [];
  const keys: string[] = [];
  const postTargetStart = new Int32Array(posts.length + 1);
  const postTargets: number[] = [];
  posts.forEach((post, p) => {
    for (const [kind, target] of [['author', post.accountId] as const, ...[...new Set(post.tags)].map((tag) => ['tag', tag] as const)]) {
      const key = `${kind}\u0000${target}`;
      let t = targetIndex.get(key);
      if (t === undefined) {
        targetIndex.set(key, (t = targets.push(target) - 1));
        kinds.push(kind);
        keys.push(key);
      }
      postTargets.push(t);
    }
    postTargetStart[p + 1] = postTargets.length;
  });
  // Users in id order, targets in key order: rows come out in the table's key order.
  const userOrder = ranks(ids.users);
  const targetByRank = ranks(keys);
  const targetRank = new Int32Array(targets.length);
  targetByRank.forEach((t, r) => (targetRank[t] = r));
  // The interactions grouped by user (in user order), each user's in the order given.
  const userRank = new Int32Array(ids.users.length);
  userOrder.forEach((u, r) => (userRank[u] = r));
  const groupStart = new Int32Array(ids.users.length + 1);
  for (let k = 0; k < interactions.length; k++) {
    const r = (userRank[ids.user[k] as number] as number) + 1;
    groupStart[r] = (groupStart[r] as number) + 1;
  }
  for (let r = 0; r < ids.users.length; r++) groupStart[r + 1] = (groupStart[r + 1] as number) + (groupStart[r] as number);
  const grouped = new Int32Array(interactions.length);
  const next = groupStart.slice(0, ids.users.length);
  for (let k = 0; k < interactions.length; k++) {
    const r = userRank[ids.user[k] as number] as number;
    const at = next[r] as number;
    grouped[at] = k;
    next[r] = at + 1;
  }

  const sum = new Float64Array(targets.length);
  const touched = new Uint8Array(targets.length);
  const rowUser: number[] = [];
  const rowTarget: number[] = [];
  const rowScore: number[] = [];
  const mine: number[] = [];
  for (let r = 0; r < ids.users.length; r++) {
    for (let g = groupStart[r] as number; g < (groupStart[r + 1] as number); g++) {
      const k = grouped[g] as number;
      const i = interactions[k] as ImportedInteraction;
      const amount = INTERACTION_STRENGTH[i.action] * Math.pow(2, -(asOfMs - i.createdAtMs) / AFFINITY_HALF_LIFE_MS);
      const p = ids.post[k] as number;
      for (let e = postTargetStart[p] as number; e < (postTargetStart[p + 1] as number); e++) {
        const tr = targetRank[postTargets[e] as number] as number;
        if (touched[tr] === 0) {
          touched[tr] = 1;
          sum[tr] = amount;
          mine.push(tr);
        } else {
          sum[tr] = (sum[tr] as number) + amount;
        }
      }
    }
    mine.sort((a, b) => a - b);
    for (const tr of mine) {
      rowUser.push(userOrder[r] as number);
      rowTarget.push(targetByRank[tr] as number);
      rowScore.push(sum[tr] as number);
      touched[tr] = 0;
    }
    mine.length = 0;
  }
  return {
    users: ids.users,
    kinds,
    targets,
    rowUser: Int32Array.from(rowUser),
    rowTarget: Int32Array.from(rowTarget),
    rowScore: Float64Array.from(rowScore),
  };
}

/** Positions of `strings` in ascending order (as a JavaScript comparison orders them). */
function ranks(strings: readonly string[]): number[] {
  return strings.map((_, k) => k).sort((a, b) => ((strings[a] as string) < (strings[b] as string) ? -1 : 1));
}

const AFFINITY_COLUMNS = ['user_id', 'kind', 'target', 'score', 'as_of_ms'] as const;

async function insertAffinities(trx: Kysely<Database>, sums: AffinitySums, asOfMs: number): Promise<void> {
  await bulkInsertFilled(trx, 'user_affinities', AFFINITY_COLUMNS, sums.rowUser.length, (r, values, at) => {
    const t = sums.rowTarget[r] as number;
    values[at] = sums.users[sums.rowUser[r] as number];
    values[at + 1] = sums.kinds[t];
    values[at + 2] = sums.targets[t];
    values[at + 3] = sums.rowScore[r];
    values[at + 4] = asOfMs;
  });
}

/**
 * Interactions: one transaction records the interaction (idempotent per user, post and
 * action), moves the post's counters (through the posts service) and the user's stored
 * affinities; after the commit it announces the new counts and the user's signal to the
 * ranking state, which updates the pool, the status caches and the profile.
 *
 * Tracking levels (PrivacyPolicy): for a user at `none` nothing is written — no interaction,
 * no counter, no affinity or interest, no signal to the ranking state — and the result says
 * `stored: false` (the route answers 202). Otherwise the same transaction also adds the
 * interaction to the user's experiment counts (by pseudonym), which the analysis reads since
 * analytics tables cannot be joined with the raw ids of `interactions`.
 */
import type { Kysely } from 'kysely';
import {
  addInterest,
  AFFINITY_HALF_LIFE_MS,
  INTERACTION_STRENGTH,
  interestAfter,
  interestAfterStored,
  interestTerms,
  interestVector,
  recentOtherPosts,
  type EngagedPost,
  type InteractionAction,
  type InterestTerms,
  type ProfileInteraction,
  type StoredAffinity,
  type StoredDecayedSums,
  type TermWeigher,
} from '../../src/ranking/index.js';
import { AppError, NotFoundError, ValidationError } from '../../src/errors.js';
import { beforePostProblem, interactionTime } from '../../src/interactions/interaction-time.js';
import { CONTEXT_BOUNDS, parseWithinBounds, stringifyWithinBounds } from '../../src/schemas/bounded-json.js';
import type { Interaction, PostCounts } from '../../src/schemas/interaction.schema.js';
import { BatchedTransactionRunner } from '../platform/db/batched-transactions.js';
import type { Database } from '../platform/db/database.js';
import type { UserColumns } from '../platform/db/user-columns.js';
import { generatePostId } from '../../src/post-ids.js';
import { type AdjustedPost, type CountDeltas, type PostService } from '../posts/post.service.js';
import { type SignalWriterState } from '../ranking-state/ranking-state.service.js';
import { UNMEASURED_INTERACTIONS, type InteractionMeasurement } from './interaction-measurement.types.js';
import type { PrivacyPolicy } from '../privacy/privacy-policy.types.js';
import { UNWIRED_PRIVACY } from '../privacy/privacy-policy.types.js';
import type { StagingDatabase } from '../platform/db/bulk-staging.js';
import { bulkLoadInteractions, startBulkLoad, type StartedBulkLoad, type ImportedInteraction } from './interaction-bulk-load.js';
import * as repo from './interaction.repository.js';
import { newestInteractionKeys, newestPostIds, postsBefore } from './co-engagement.repository.js';

/** The stored affinity changes of a signal of `amount` about `post`: its author and each tag. */
function affinityChanges(post: EngagedPost, amount: number): repo.AffinityChange[] {
  return [
    { kind: 'author', target: post.accountId, amount },
    ...[...new Set(post.tags)].map((tag) => ({ kind: 'tag' as const, target: tag, amount })),
  ];
}

const COUNTER: Record<InteractionAction, keyof CountDeltas> = { favorite: 'favourites', reblog: 'reblogs', bookmark: 'bookmarks' };

export interface RecordInput {
  userId: string;
  postId: string;
  actionType: InteractionAction;
  context?: Record<string, unknown>;
  /** When it happened (a parsed `created_at`); default: when it is received. See src/interactions/interaction-time.ts. */
  createdAtMs?: number;
}

/** What became of one recorded interaction: new, already there, or acknowledged without storing (tracking level `none`). */
export type RecordStatus = 'created' | 'existing' | 'not_stored';

/** An interaction ready to write: its row, validated, and whether its time was given. */
interface PreparedInteraction {
  readonly input: RecordInput;
  readonly row: repo.InteractionRow;
  readonly timeGiven: boolean;
  /** Where its fields are in the request (`''` for a single write, `interactions[3].` in a batch). */
  readonly at: string;
}

/** One interaction's write inside the batch's transaction. */
type WriteOutcome =
  | { created: false; existing: repo.InteractionRow | undefined }
  | { created: true; post: EngagedPost; counts: AdjustedPost['counts']; written: SignalWrite; partners: string[] };

/**
 * Loads interactions made in the past, inside the caller's transaction, with what each live
 * interaction also writes: the posts' counters, the users' stored affinities, decayed to
 * `asOfMs` (summed in the order given), and their interest vectors (each interaction's
 * terms added in time order, as live writes would have). For a database holding none of
 * these users' interactions (demo seeding, benchmarks): multi-row inserts, no per-row
 * lookups. Terms are weighed by `weigher`, by default the pool a server would load from the
 * database now (with the default pool bounds). The caller reloads the ranking state after
 * its commit. Tracking levels are not asked and nothing is added to experiment counts: a bulk
 * load is history (demo data, benchmarks) from before any experiment, and its users' levels
 * are the loader's responsibility.
 */
export async function importInteractions(
  trx: Kysely<Database>,
  interactions: readonly ImportedInteraction[],
  asOfMs: number,
  weigher?: TermWeigher,
): Promise<void> {
  await bulkLoadInteractions(trx, interactions, asOfMs, weigher === undefined ? {} : { weigher });
}

export type { ImportedInteraction, StartedBulkLoad } from './interaction-bulk-load.js';

/**
 * importInteractions in two steps, for a caller writing the posts they refer to in the same
 * transaction meanwhile (demo seeding): given a staging file (inBulkLoadTransaction's), a worker
 * builds the interactions table from now on while the caller writes; `finish` loads the rest.
 */
export async function startImport(
  trx: Kysely<Database>,
  interactions: readonly ImportedInteraction[],
  staging: StagingDatabase | undefined,
): Promise<StartedBulkLoad> {
  return startBulkLoad(trx, interactions, staging ? { staging } : {});
}

/** One signal's stored interest change (see `InteractionService.addSignal`). */
export interface SignalWrite {
  readonly userId: string;
  /** The terms added: announce them with the signal. */
  readonly terms: InterestTerms;
  /** The vector as stored by this write. */
  readonly interest: StoredDecayedSums;
}

export type { StoredSignals } from './interaction.repository.js';

export class InteractionService {
  /**
   * A user's stored signals (`affinities`, `interest` and `interactedPostIds` together), as
   * columns of a statement that reads other features' rows of the user too: a first request's
   * profile is one statement (server/recommendations/profile-loader.ts).
   */
  readonly signalColumns: UserColumns<repo.StoredSignals> = repo.storedSignalColumns;

  /** Interaction writes arriving together share one transaction (group commit). */
  private readonly writes: BatchedTransactionRunner<Database>;

  /**
   * @param state where committed changes are announced, the pool's idf that weighs a
   * signal's interest terms, and the interest vectors memory already knows (the ranking state).
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly state: SignalWriterState,
    private readonly posts: PostService,
    private readonly privacy: PrivacyPolicy = UNWIRED_PRIVACY,
    /** Experiment measurement, in each write's transaction (experimentMeasurement, wired in server/features.ts). */
    private readonly measurement: InteractionMeasurement = UNMEASURED_INTERACTIONS,
  ) {
    this.writes = new BatchedTransactionRunner(db);
  }

  /**
   * Records an interaction; `created` is false when it already existed (nothing changes then,
   * its time included), `stored` false when the user's tracking level keeps nothing (the post
   * must still exist).
   */
  async record(input: RecordInput, nowMs = Date.now()): Promise<{ interaction: Interaction; created: boolean; stored: boolean }> {
    const prepared = prepare(input, nowMs, '');
    if (!this.privacy.allowanceFor(input.userId).storeInteractions) {
      await this.posts.counts(input.postId);
      return { interaction: toInteraction(prepared.row), created: false, stored: false };
    }
    const [outcome] = await this.runSignalWrite(async (trx, track) => [await this.writeOne(trx, prepared, nowMs, track)]);
    if (outcome === undefined || !outcome.created) {
      return { interaction: toInteraction(outcome?.existing ?? prepared.row), created: false, stored: true };
    }
    this.announceRecorded(prepared, outcome);
    return { interaction: toInteraction(prepared.row), created: true, stored: true };
  }

  /**
   * Records a batch as one unit of the group commit: all or nothing. Every interaction is
   * checked before anything is written (a refused one names its index, e.g.
   * `interactions[3].created_at`); each has the single write's idempotency and tracking
   * level. Results in the order given.
   */
  async recordMany(inputs: readonly RecordInput[], nowMs = Date.now()): Promise<{ status: RecordStatus; interaction: Interaction }[]> {
    const prepared = inputs.map((input, i) => prepare(input, nowMs, `interactions[${i}].`));
    const stored = prepared.filter((p) => this.privacy.allowanceFor(p.input.userId).storeInteractions);
    const storing = new Set(stored);
    for (const p of prepared) {
      if (storing.has(p)) continue;
      // Nothing is stored for this user, but the post must exist, as for a single write.
      await this.posts.counts(p.input.postId).catch((error: unknown) => {
        throw error instanceof NotFoundError ? missingPost(p) : error;
      });
    }
    const outcomes = new Map<PreparedInteraction, WriteOutcome>();
    if (stored.length > 0) {
      await this.runSignalWrite(async (trx, track) => {
        for (const p of stored) outcomes.set(p, await this.writeOne(trx, p, nowMs, track));
      });
    }
    return prepared.map((p) => {
      const outcome = outcomes.get(p);
      if (outcome === undefined) return { status: 'not_stored' as const, interaction: toInteraction(p.row) };
      if (!outcome.created) return { status: 'existing' as const, interaction: toInteraction(outcome.existing ?? p.row) };
      this.announceRecorded(p, outcome);
      return { status: 'created' as const, interaction: toInteraction(p.row) };
    });
  }

  /**
   * One interaction's statements inside the batch's transaction. Three for a new one: the
   * insert (whose foreign key says whether the post exists), the counters (which return the
   * post's author, tags, text and time) and the affinities. The post is never read on its own.
   * A given time before the post's is refused after the fact: the unit's rollback undoes it.
   */
  private async writeOne(
    trx: Kysely<Database>,
    p: PreparedInteraction,
    nowMs: number,
    track: (write: SignalWrite) => SignalWrite,
  ): Promise<WriteOutcome> {
    const { input, row } = p;
    const inserted = await repo.insertInteraction(trx, row);
    if (inserted === 'no-post') throw missingPost(p);
    if (inserted === 'exists') {
      return { created: false, existing: await repo.findInteraction(trx, input.userId, input.postId, input.actionType) };
    }
    const adjusted = await this.posts.adjustCounts(trx, input.postId, { [COUNTER[input.actionType]]: 1 });
    if (!adjusted) throw missingPost(p);
    const atMs = row.created_at_ms;
    const problem = p.timeGiven ? beforePostProblem(atMs, adjusted.createdAtMs) : undefined;
    if (problem !== undefined) throw new ValidationError(`${p.at}created_at: ${problem}`, `${p.at}created_at`);
    const { post } = adjusted;
    const written = track(await this.addSignal(trx, input.userId, post, INTERACTION_STRENGTH[input.actionType], atMs));
    await this.measurement.interactionStored(trx, this.privacy.pseudonym(input.userId), atMs, nowMs);
    return { created: true, post, counts: adjusted.counts, written, partners: await this.coEngagementPartners(trx, row, 'stored') };
  }

  private announceRecorded(p: PreparedInteraction, outcome: Extract<WriteOutcome, { created: true }>): void {
    const interaction = { post: outcome.post, action: p.input.actionType, createdAtMs: p.row.created_at_ms };
    this.announce(p.input.userId, outcome.counts, interaction, outcome.written, false, outcome.partners);
  }

  /** Undoes an interaction by id, removing its effect on counts, affinities and ranking. */
  async undoById(id: string, authorize: (userId: string) => void): Promise<Interaction> {
    const row = await repo.findInteractionById(this.db, id);
    if (!row) throw new NotFoundError(`No interaction with id ${id}`);
    authorize(row.user_id);
    return this.undoRow(row);
  }

  /** Undoes the interaction of (user, post, action); NotFoundError when there is none. */
  async undo(userId: string, postId: string, actionType: InteractionAction): Promise<Interaction> {
    const row = await repo.findInteraction(this.db, userId, postId, actionType);
    if (!row) throw new NotFoundError(`User ${userId} has no ${actionType} on post ${postId}`);
    return this.undoRow(row);
  }

  /** A user's interactions, newest first. */
  async list(userId: string, options: { actionType?: string; maxId?: string; limit: number }): Promise<Interaction[]> {
    return (await repo.listUserInteractions(this.db, userId, options)).map(toInteraction);
  }

  /** A post's counters; NotFoundError when the post does not exist. */
  async counts(postId: string): Promise<PostCounts> {
    return { post_id: postId, ...(await this.posts.counts(postId)) };
  }

  /** A user's live interactions, oldest first (the history a profile could be replayed from). */
  async history(userId: string): Promise<{ postId: string; action: InteractionAction; createdAtMs: number }[]> {
    return (await repo.allUserInteractions(this.db, userId)).map((row) => ({
      postId: row.post_id,
      action: row.action_type as InteractionAction,
      createdAtMs: row.created_at_ms,
    }));
  }

  /** The posts of the user's most recent interactions, newest first, distinct, at most `limit` (a post has at most three rows). */
  async recentPosts(userId: string, limit: number): Promise<string[]> {
    return recentOtherPosts(await newestPostIds(this.db, userId, 3 * limit), '', limit);
  }

  /** The post of each of a user's live interactions (one id per interaction). */
  async interactedPostIds(userId: string): Promise<string[]> {
    return repo.userInteractionPostIds(this.db, userId);
  }

  /** Whether any user's interest vector is stored (none: a database from before they were, or no signals yet). */
  async hasStoredInterests(): Promise<boolean> {
    return repo.hasInterests(this.db);
  }

  /** The users with the most interactions among the newest `recent` ones, busiest first (the cache warmer's choice). */
  async mostActiveRecentUsers(recent: number, limit: number): Promise<string[]> {
    return repo.mostActiveRecentUsers(this.db, recent, limit);
  }

  /** Every user with at least one live interaction. */
  async interactingUsers(): Promise<string[]> {
    return repo.interactingUsers(this.db);
  }

  /**
   * Stores interest vectors rebuilt from signals (given oldest first per user), inside the
   * caller's transaction: the one-time backfill of a database from before they were stored.
   */
  async storeRebuiltInterests(
    trx: Kysely<Database>,
    signals: ReadonlyMap<string, readonly { post: EngagedPost; amount: number; atMs: number }[]>,
  ): Promise<void> {
    for (const [userId, list] of signals) {
      const interest = interestVector();
      for (const s of list) addInterest(interest, interestTerms(s.post, s.amount, this.state), s.atMs);
      await repo.saveInterest(trx, userId, interest.stored());
    }
  }

  /** A user's stored interest vector (kept by every interaction, undo and feedback), if any. */
  async interest(userId: string): Promise<StoredDecayedSums | undefined> {
    return repo.findInterest(this.db, userId);
  }

  /** A user's stored author and tag affinities (kept by every interaction, undo and feedback). */
  async affinities(userId: string): Promise<StoredAffinity[]> {
    return (await repo.userAffinities(this.db, userId)).map((row) => ({
      kind: row.kind === 'author' ? 'author' : 'tag',
      target: row.target,
      score: row.score,
      asOfMs: row.as_of_ms,
    }));
  }

  /**
   * Adds a signal of `amount` about `post` at `atMs` to the user's stored affinities and
   * interest vector, inside the caller's transaction (interactions, their undo, feedback).
   * The vector is read from memory when the ranking state knows it (the user's cached
   * profile, or a write not yet announced), else from the database. The caller announces
   * the returned terms with the signal, then calls `settled` (also when its transaction failed).
   */
  async addSignal(trx: Kysely<Database>, userId: string, post: EngagedPost, amount: number, atMs: number): Promise<SignalWrite> {
    await repo.addAffinities(trx, userId, affinityChanges(post, amount), atMs, AFFINITY_HALF_LIFE_MS);
    const terms = interestTerms(post, amount, this.state);
    // With other processes writing the database, this process's memory may be behind their
    // writes (their invalidations arrive later): the stored vector, read under the batch's lock.
    const fromMemory = this.writes.sharedAcrossProcesses ? undefined : this.state.writtenInterest(userId);
    // Read from the database: the stored form is added to as it is (no vector restored from it).
    const interest =
      fromMemory !== undefined
        ? interestAfter(fromMemory, terms, atMs)
        : interestAfterStored(await repo.findInterest(trx, userId, { keysJson: true }), terms, atMs);
    await repo.saveInterest(trx, userId, interest);
    this.state.interestWritten(userId, interest);
    return { userId, terms, interest };
  }

  /** After a signal write was announced, or its transaction failed (see `addSignal`). */
  settled(write: SignalWrite, failed = false): void {
    this.state.interestSettled(write.userId, write.interest, failed);
  }

  /**
   * Runs `work` as a unit of the interactions' group commit (see BatchedTransactionRunner): for
   * other writers of a user's signals (feedback), so that every write of a stored interest
   * vector is serialised with the others — across instances too, on PostgreSQL.
   */
  inSignalBatch<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.writes.run(work);
  }

  /**
   * Runs a signal write in the batched transaction; `track` marks each interest write it
   * made, which are settled as failed if the transaction then fails.
   */
  private async runSignalWrite<T>(work: (trx: Kysely<Database>, track: (write: SignalWrite) => SignalWrite) => Promise<T>): Promise<T> {
    const written: SignalWrite[] = [];
    const track = (write: SignalWrite): SignalWrite => {
      written.push(write);
      return write;
    };
    try {
      return await this.writes.run(async (trx) => {
        try {
          return await work(trx, track);
        } catch (error) {
          // The unit is rolled back to its savepoint before the batch's next unit runs: what it
          // put in memory (interest vectors, newest interactions) must be gone by then too.
          for (const write of written) this.settled(write, true);
          throw error;
        }
      });
    } catch (error) {
      for (const write of written) this.settled(write, true);
      throw error;
    }
  }

  private async undoRow(row: repo.InteractionRow): Promise<Interaction> {
    const action = row.action_type as InteractionAction;
    const outcome = await this.runSignalWrite(async (trx, track) => {
      if (!(await repo.deleteInteraction(trx, row.id))) return undefined;
      const adjusted = await this.posts.adjustCounts(trx, row.post_id, { [COUNTER[action]]: -1 });
      if (!adjusted) return undefined;
      const { post, counts } = adjusted;
      const written = track(await this.addSignal(trx, row.user_id, post, -INTERACTION_STRENGTH[action], row.created_at_ms));
      await this.measurement.interactionUndone(trx, this.privacy.pseudonym(row.user_id), row.created_at_ms);
      return { post, counts, written, partners: await this.coEngagementPartners(trx, row, 'deleted') };
    });
    if (outcome) {
      const interaction = { post: outcome.post, action, createdAtMs: row.created_at_ms };
      this.announce(row.user_id, outcome.counts, interaction, outcome.written, true, outcome.partners);
    }
    return toInteraction(row);
  }

  /**
   * The co-engagement writers' rule (docs/ranking.md): an interaction pairs its post with the
   * user's `coEngagementWindow` most recent other posts before it (one row per action: a post
   * has at most three). An undo takes back the same pairs.
   * Called once the row is `stored` (or `deleted`, an undo), in the same transaction. The
   * user's newest rows come from the writers' memory (RankingState.recentInteractions: read
   * from the database once per user, then kept by each write) when this process is the
   * database's only writer; the database is read when memory cannot tell (a write dated
   * before what it holds), or when other processes write it too.
   */
  private async coEngagementPartners(
    trx: Kysely<Database>,
    row: Pick<repo.InteractionRow, 'user_id' | 'post_id' | 'created_at_ms' | 'id'>,
    change: 'stored' | 'deleted',
  ): Promise<string[]> {
    const window = this.state.coEngagementWindow;
    // A window of 0 turns the pairing off (the collaborative feature then has nothing to read).
    if (window === 0) return [];
    const atMs = Number(row.created_at_ms);
    const memory = this.writes.sharedAcrossProcesses ? undefined : this.state.recentInteractions;
    let partners: string[] | undefined;
    if (memory !== undefined) {
      if (!memory.holds(row.user_id)) {
        // Read after this write's own insert or delete: memory starts from the stored rows as they are now.
        memory.load(row.user_id, await newestInteractionKeys(trx, row.user_id, memory.options.rowsPerUser));
      }
      partners = memory.partnersBefore(row.user_id, row.post_id, atMs, row.id, window);
      if (change === 'stored') memory.added(row.user_id, { postId: row.post_id, atMs, id: row.id });
      else memory.removed(row.user_id, row.id);
    }
    if (partners !== undefined) return partners;
    const before = await postsBefore(trx, row.user_id, row.post_id, atMs, row.id, 3 * window);
    return recentOtherPosts(before, row.post_id, window);
  }

  /** After the commit: the post's new counts, the user's signal and the co-engagement change, as events. */
  private announce(
    userId: string,
    counts: AdjustedPost['counts'],
    interaction: ProfileInteraction,
    written: SignalWrite,
    undo: boolean,
    partners: readonly string[],
  ): void {
    const { id, ...postCounts } = counts;
    // Dated by the interaction's own time (an undo's too: it takes back what was counted then).
    this.state.postCountsChanged(id, postCounts, interaction.createdAtMs);
    this.state.userSignalsChanged(userId, { kind: 'interaction', interaction, terms: written.terms, ...(undo ? { undo: true } : {}) });
    this.state.coEngaged({ postId: interaction.post.id, withPostIds: partners, weight: undo ? -1 : 1 });
    this.settled(written);
  }
}

/**
 * The wire interaction of a row. A context stored before contexts were bounded that breaks
 * the bounds reads as null: handed to the response serialiser, a deep one overflowed its
 * stack (every later list of that user was a 500) and a huge one cost megabytes per row.
 */
function toInteraction(row: repo.InteractionRow): Interaction {
  return {
    id: row.id,
    user_id: row.user_id,
    post_id: row.post_id,
    action_type: row.action_type,
    context: row.context_json === null ? null : storedContext(row.context_json),
    created_at: row.created_at,
  };
}

/**
 * Checks an interaction before anything is written (its context's bounds, its time) and makes
 * its row; `at` prefixes the fields named in errors. Its id is made from the receipt time, so
 * ids (and the list's order) follow the order interactions were logged in.
 */
function prepare(input: RecordInput, nowMs: number, at: string): PreparedInteraction {
  // A context beyond the bounds is a 400 naming its path, and nothing stored can later be too
  // deep or too big to serialise in a response.
  const contextJson = input.context === undefined ? null : stringifyWithinBounds(input.context, CONTEXT_BOUNDS, `${at}context`);
  const time = interactionTime(input.createdAtMs, nowMs);
  if ('refused' in time) throw new ValidationError(`${at}created_at: ${time.refused}`, `${at}created_at`);
  const row = {
    id: generatePostId(nowMs),
    user_id: input.userId,
    post_id: input.postId,
    action_type: input.actionType,
    context_json: contextJson,
    created_at: new Date(time.atMs).toISOString(),
    created_at_ms: time.atMs,
  };
  return { input, row, timeGiven: input.createdAtMs !== undefined, at };
}

/** 404 for an interaction's missing post (naming the field in a batch). */
function missingPost(p: PreparedInteraction): AppError {
  const message = `${p.at === '' ? '' : `${p.at}post_id: `}No post with id ${p.input.postId}`;
  return p.at === '' ? new NotFoundError(message) : new AppError(404, 'Resource not found', message, `${p.at}post_id`);
}

function storedContext(json: string): Record<string, unknown> | null {
  const value = parseWithinBounds(json, CONTEXT_BOUNDS);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

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
  interestTerms,
  interestVector,
  type EngagedPost,
  type InteractionAction,
  type InterestTerms,
  type ProfileInteraction,
  type StoredAffinity,
  type StoredDecayedSums,
  type TermWeigher,
} from '../../src/ranking/index.js';
import { NotFoundError } from '../../src/errors.js';
import { CONTEXT_BOUNDS, parseWithinBounds, stringifyWithinBounds } from '../../src/schemas/bounded-json.js';
import type { Interaction, PostCounts } from '../../src/schemas/interaction.schema.js';
import { BatchedTransactionRunner } from '../db/batched-transactions.js';
import type { Database } from '../db/database.js';
import { generatePostId } from '../../src/post-ids.js';
import { type AdjustedPost, type CountDeltas, type PostService } from '../posts/post.service.js';
import { type SignalWriterState } from '../ranking-state/ranking-state.service.js';
import { PRE_PERIOD_MS } from '../experiments/experiment-counts.service.js';
import { addUserCounts, removePreEngagement } from '../experiments/experiment-counts.service.js';
import type { PrivacyPolicy } from '../privacy/privacy-policy.types.js';
import { UNWIRED_PRIVACY } from '../privacy/privacy-policy.types.js';
import type { StagingDatabase } from '../db/bulk-staging.js';
import { bulkLoadInteractions, startBulkLoad, type StartedBulkLoad } from './interaction-bulk-load.js';
import * as repo from './interaction.repository.js';

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
}

/** An interaction of a bulk load (demo data, benchmarks), with the id and time it was made. */
export interface ImportedInteraction {
  id: string;
  userId: string;
  postId: string;
  action: InteractionAction;
  createdAtMs: number;
}

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

export type { StartedBulkLoad } from './interaction-bulk-load.js';

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

export class InteractionService {
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
  ) {
    this.writes = new BatchedTransactionRunner(db);
  }

  /**
   * Records an interaction; `created` is false when it already existed (nothing changes then),
   * `stored` false when the user's tracking level keeps nothing (the post must still exist).
   */
  async record(input: RecordInput, nowMs = Date.now()): Promise<{ interaction: Interaction; created: boolean; stored: boolean }> {
    // Checked before anything is written: a context beyond the bounds is a 400 naming its path,
    // and nothing stored can later be too deep or too big to serialise in a response.
    const contextJson = input.context === undefined ? null : stringifyWithinBounds(input.context, CONTEXT_BOUNDS, 'context');
    const row = {
      id: generatePostId(nowMs),
      user_id: input.userId,
      post_id: input.postId,
      action_type: input.actionType,
      context_json: contextJson,
      created_at: new Date(nowMs).toISOString(),
      created_at_ms: nowMs,
    };
    if (!this.privacy.allowanceFor(input.userId).storeInteractions) {
      await this.posts.counts(input.postId);
      return { interaction: toInteraction(row), created: false, stored: false };
    }
    // Three statements for a new interaction: the insert (whose foreign key says whether the
    // post exists), the counters (which return the post's author, tags and text) and the
    // affinities. The post is never read on its own.
    const outcome = await this.runSignalWrite(async (trx, track) => {
      const inserted = await repo.insertInteraction(trx, row);
      if (inserted === 'no-post') throw new NotFoundError(`No post with id ${input.postId}`);
      if (inserted === 'exists') {
        const existing = await repo.findInteraction(trx, input.userId, input.postId, input.actionType);
        return { created: false as const, existing };
      }
      const adjusted = await this.posts.adjustCounts(trx, input.postId, { [COUNTER[input.actionType]]: 1 });
      if (!adjusted) throw new NotFoundError(`No post with id ${input.postId}`);
      const { post } = adjusted;
      const written = track(await this.addSignal(trx, input.userId, post, INTERACTION_STRENGTH[input.actionType], nowMs));
      await addUserCounts(trx, this.privacy.pseudonym(input.userId), nowMs, 'interactions', 1);
      return { created: true as const, post, counts: adjusted.counts, written };
    });
    if (!outcome.created) {
      return { interaction: toInteraction(outcome.existing ?? row), created: false, stored: true };
    }
    this.announce(
      input.userId,
      outcome.counts,
      { post: outcome.post, action: input.actionType, createdAtMs: nowMs },
      outcome.written,
      false,
    );
    return { interaction: toInteraction(row), created: true, stored: true };
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

  /** The post of each of a user's live interactions (one id per interaction). */
  async interactedPostIds(userId: string): Promise<string[]> {
    return repo.userInteractionPostIds(this.db, userId);
  }

  /** Whether any user's interest vector is stored (none: a database from before they were, or no signals yet). */
  async hasStoredInterests(): Promise<boolean> {
    return repo.hasInterests(this.db);
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
    const base = fromMemory ?? interestVector(await repo.findInterest(trx, userId));
    const interest = interestAfter(base, terms, atMs);
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
   * Runs a signal write in the batched transaction; `track` marks the interest write it
   * made, which is settled as failed if the transaction then fails.
   */
  private async runSignalWrite<T>(work: (trx: Kysely<Database>, track: (write: SignalWrite) => SignalWrite) => Promise<T>): Promise<T> {
    let written: SignalWrite | undefined;
    try {
      return await this.writes.run((trx) => work(trx, (write) => (written = write)));
    } catch (error) {
      if (written !== undefined) this.settled(written, true);
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
      const pseudonym = this.privacy.pseudonym(row.user_id);
      await addUserCounts(trx, pseudonym, row.created_at_ms, 'interactions', -1);
      await removePreEngagement(trx, pseudonym, row.created_at_ms, PRE_PERIOD_MS);
      return { post, counts, written };
    });
    if (outcome) {
      this.announce(row.user_id, outcome.counts, { post: outcome.post, action, createdAtMs: row.created_at_ms }, outcome.written, true);
    }
    return toInteraction(row);
  }

  /** After the commit: the post's new counts and the user's signal, as events. */
  private announce(
    userId: string,
    counts: AdjustedPost['counts'],
    interaction: ProfileInteraction,
    written: SignalWrite,
    undo: boolean,
  ): void {
    const { id, ...postCounts } = counts;
    this.state.postCountsChanged(id, postCounts);
    this.state.userSignalsChanged(userId, { kind: 'interaction', interaction, terms: written.terms, ...(undo ? { undo: true } : {}) });
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

function storedContext(json: string): Record<string, unknown> | null {
  const value = parseWithinBounds(json, CONTEXT_BOUNDS);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

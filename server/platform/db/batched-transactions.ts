/**
 * Group commit: units of work submitted within one event-loop turn (or a few more turns,
 * while they keep arriving) run in ONE transaction, each inside its own savepoint, so a
 * unit that throws is rolled back alone and rejects alone. Every caller settles only
 * after the shared COMMIT (or with the commit's error), so nothing is acknowledged
 * before it is durable. Under concurrent writes this replaces a BEGIN/COMMIT (and the
 * WAL append of each commit) per request with one per batch. Standard SAVEPOINT
 * statements keep it dialect-neutral.
 *
 * Several processes on one PostgreSQL database (instances behind a load balancer) commit
 * batches at the same time, and two batches lock the same rows (a post's counters, a user's
 * interests) in whatever order their units came: opposite orders deadlock, and PostgreSQL
 * breaks a deadlock only after deadlock_timeout (1 s), aborting one side. So on PostgreSQL
 * a batch first takes a transaction advisory lock of its schema: the instances' batches
 * commit one after another (each grows meanwhile, so the commits stay few) instead of
 * waiting on each other's rows. A unit that still loses such a race (a deadlock with some
 * other writer, or a serialization failure) runs again in the next batch, after this one's
 * commit released its locks, a few times at most.
 *
 * PostgreSQL also aborts the whole transaction when any statement fails, even when the unit
 * catches the error and carries on, and it turns a COMMIT of an aborted transaction into a
 * silent ROLLBACK. So on PostgreSQL every unit, a lone one too, runs in its savepoint, and a
 * unit whose savepoint cannot be released (the transaction was aborted under it) fails
 * alone, rolled back to its savepoint: nothing is acknowledged that the COMMIT would not
 * keep. (SQLite rolls back only the failed statement; a unit that catches the error keeps
 * the rest of its writes, as it would in a transaction of its own.)
 */
import { CompiledQuery, PostgresAdapter, type Kysely, type Transaction } from 'kysely';
import { executeCompiled } from './precompiled-query.js';

// Standard SQL (SQLite and PostgreSQL alike), built once: kysely's savepoint API builds
// and compiles a query tree and a transaction object for each of these, per unit.
const SAVEPOINT = CompiledQuery.raw('SAVEPOINT batch_unit');
const ROLLBACK_TO_SAVEPOINT = CompiledQuery.raw('ROLLBACK TO SAVEPOINT batch_unit');
const RELEASE_SAVEPOINT = CompiledQuery.raw('RELEASE SAVEPOINT batch_unit');
// PostgreSQL: one batch at a time per schema, across processes (two-int key space: apart from bigint-keyed locks).
const BATCH_LOCK = CompiledQuery.raw("SELECT pg_advisory_xact_lock(hashtext('recsvc:group-commit'), hashtext(current_schema()))");

interface Pending<DB> {
  work: (trx: Transaction<DB>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  /** Runs so far that lost a race with another process's transaction. */
  retries: number;
}

/** PostgreSQL's deadlock_detected and serialization_failure: the work may simply run again. */
const RACE_LOST = new Set(['40P01', '40001']);
/** Runs again at most this many times after losing a race. */
const MAX_RETRIES = 3;

function lostRace(error: unknown): boolean {
  return typeof error === 'object' && error !== null && RACE_LOST.has(String((error as { code?: unknown }).code));
}

/** Extra event-loop turns a batch may wait while requests keep arriving. */
const MAX_GATHER_TURNS = 3;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class BatchedTransactionRunner<DB> {
  private queue: Pending<DB>[] = [];
  private scheduled = false;
  private running = false;
  /** PostgreSQL: batches take the schema's lock, and a lone unit gets a savepoint too (see the file's comment). */
  private readonly lockBatches: boolean;
  /**
   * Whether other processes may write the same database (PostgreSQL: instances behind a load
   * balancer): a unit must then read what it builds on from the database, inside its batch
   * (which holds the schema's lock), never from this process's memory.
   */
  readonly sharedAcrossProcesses: boolean;

  constructor(
    private readonly db: Kysely<DB>,
    /** Most units per transaction (bounds the latency a batch adds). */
    private readonly maxBatch = 256,
  ) {
    this.lockBatches = db.getExecutor().adapter instanceof PostgresAdapter;
    this.sharedAcrossProcesses = this.lockBatches;
  }

  /** Runs `work` in a shared transaction; resolves with its result after the commit. */
  run<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject, retries: 0 });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    // setImmediate: after the I/O phase, so every request parsed in this turn joins the batch.
    // While the previous turn brought more work, wait one more (non-blocking) turn, a few at
    // most: requests still arriving join this commit instead of paying for their own.
    let seen = this.queue.length;
    let turns = 0;
    const tick = (): void => {
      if (this.queue.length > seen && turns < MAX_GATHER_TURNS && this.queue.length < this.maxBatch) {
        seen = this.queue.length;
        turns += 1;
        setImmediate(tick);
        return;
      }
      this.scheduled = false;
      void this.flush();
    };
    setImmediate(tick);
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    this.running = true;
    try {
      const outcomes = await this.execute(batch);
      batch.forEach((item, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) item.resolve(outcome.value);
        else this.retryOrReject(item, outcome.error);
      });
    } catch (error) {
      for (const item of batch) this.retryOrReject(item, error);
    } finally {
      this.running = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private retryOrReject(item: Pending<DB>, error: unknown): void {
    if (!lostRace(error) || item.retries >= MAX_RETRIES) {
      item.reject(error);
      return;
    }
    item.retries += 1;
    this.queue.push(item);
  }

  /** One transaction for the batch; on SQLite a lone unit needs no savepoint (its failure rolls back all). */
  private async execute(batch: readonly Pending<DB>[]): Promise<Outcome[]> {
    const trx = await this.db.startTransaction().execute();
    const outcomes: Outcome[] = [];
    try {
      if (this.lockBatches) await trx.executeQuery(BATCH_LOCK);
      for (const item of batch) {
        if (batch.length === 1 && !this.lockBatches) {
          outcomes.push(await settle(item.work(trx)));
          continue;
        }
        await run(trx, SAVEPOINT);
        outcomes.push(await endUnit(trx, await settle(item.work(trx))));
      }
    } catch (error) {
      await trx.rollback().execute();
      throw error;
    }
    if (batch.length === 1 && !outcomes[0]!.ok) {
      await trx.rollback().execute();
      return outcomes;
    }
    try {
      await trx.commit().execute();
    } catch (error) {
      // A failed COMMIT (e.g. busy) can leave the transaction open: end it, then fail every unit.
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      throw error;
    }
    return outcomes;
  }
}

/**
 * Ends a unit's savepoint: kept when the unit succeeded; rolled back when it failed, or when
 * the release fails because one of the unit's statements failed and the unit caught the error
 * (PostgreSQL then refuses everything until the transaction is rolled back to the savepoint):
 * the unit then fails, its writes undone, and the rest of the batch carries on.
 */
async function endUnit<DB>(trx: Transaction<DB>, outcome: Outcome): Promise<Outcome> {
  let ended = outcome;
  if (ended.ok) {
    try {
      await run(trx, RELEASE_SAVEPOINT);
      return ended;
    } catch (error) {
      const message = `the write was rolled back: one of its statements failed (${(error as Error).message})`;
      ended = { ok: false, error: new Error(message, { cause: error }) };
    }
  }
  await run(trx, ROLLBACK_TO_SAVEPOINT);
  await run(trx, RELEASE_SAVEPOINT);
  return ended;
}

/** A prebuilt statement in the batch's transaction (on SQLite straight on its connection: executeCompiled). */
function run<DB>(trx: Transaction<DB>, query: CompiledQuery): Promise<unknown> {
  return executeCompiled(trx, query.sql, query.parameters);
}

async function settle(promise: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * The interest vectors of a bulk load of interactions (demo seeding, benchmarks), computed
 * from numbers only so that the work can move to a worker thread (interest-vectors.worker.ts)
 * while the loading thread writes rows: each post's unit term vector once, then every signal
 * in time order through `addInterest`, as live writes would have added them, so the stored
 * vectors are the live path's to the last bit.
 */
import { addInterest, interestVector, type InterestTerms, type StoredDecayedSums } from '../../src/ranking/index.js';

/** Every input as numbers and flat arrays (a worker receives them without copying the typed arrays). */
export interface InterestLoad {
  /** Term dictionary: the terms of every post's vector. */
  readonly terms: readonly string[];
  /** Post p's terms are `postTermIds[postTermStart[p] .. postTermStart[p + 1])`, in its vector's order. */
  readonly postTermStart: Int32Array;
  readonly postTermIds: Int32Array;
  /** Each term's weight in the post's unit vector (`interestTerms(post, 1, weigher)`). */
  readonly postTermWeights: Float64Array;
  /** User ids by index. */
  readonly users: readonly string[];
  /** The signals (user index, post index, strength, instant), and their positions in time order. */
  readonly signalUser: Int32Array;
  readonly signalPost: Int32Array;
  readonly signalAmount: Float64Array;
  readonly signalAtMs: Float64Array;
  readonly timeOrder: Uint32Array;
}

/** The stored vectors, by user in id order (`users`), weights of user k at `weights[weightStart[k] .. weightStart[k + 1])`. */
export interface InterestRows {
  readonly users: readonly string[];
  readonly refMs: Float64Array;
  readonly latestMs: Float64Array;
  readonly keysJson: readonly string[];
  readonly weightStart: Int32Array;
  readonly weights: Float64Array;
}

/** The typed arrays of `rows`, to hand over without a copy (postMessage's transfer list). */
export function transferables(rows: InterestRows): ArrayBuffer[] {
  return [rows.refMs, rows.latestMs, rows.weightStart, rows.weights].map((a) => a.buffer as ArrayBuffer);
}

/**
 * Computes every user's interest vector of `load` (see the module's comment), one user at a
 * time: users' vectors are independent, so each is built from that user's signals in time
 * order, stored, and dropped before the next (holding all 100,000 at once, a third of the
 * work was the collector's).
 */
export function interestRows(load: InterestLoad): InterestRows {
  const bySignal = signalsByUser(load);
  const order = load.users.map((_, u) => u).filter((u) => (bySignal.start[u + 1] as number) > (bySignal.start[u] as number));
  order.sort((a, b) => ((load.users[a] as string) < (load.users[b] as string) ? -1 : 1));
  const termsOf = scaledTerms(load);
  const refMs = new Float64Array(order.length);
  const latestMs = new Float64Array(order.length);
  const keysJson: string[] = [];
  const weightStart = new Int32Array(order.length + 1);
  const values: Float64Array[] = [];
  order.forEach((u, row) => {
    const vector = interestVector();
    for (let g = bySignal.start[u] as number; g < (bySignal.start[u + 1] as number); g++) {
      const k = bySignal.signals[g] as number;
      addInterest(vector, termsOf(k), load.signalAtMs[k] as number);
    }
    const stored = vector.stored();
    refMs[row] = stored.refMs;
    latestMs[row] = stored.latestMs;
    keysJson.push(stored.keysJson ?? JSON.stringify(stored.keys));
    values.push(stored.values);
    weightStart[row + 1] = (weightStart[row] as number) + stored.values.length;
  });
  const weights = new Float64Array(weightStart[order.length] as number);
  values.forEach((v, row) => weights.set(v, weightStart[row]));
  return { users: order.map((u) => load.users[u] as string), refMs, latestMs, keysJson, weightStart, weights };
}

/** The signals grouped by user, each user's in time order: user u's are `signals[start[u] .. start[u + 1])`. */
function signalsByUser(load: InterestLoad): { start: Int32Array; signals: Uint32Array } {
  const { timeOrder, signalUser } = load;
  const n = timeOrder.length;
  const start = new Int32Array(load.users.length + 1);
  for (let g = 0; g < n; g++) {
    const at = (signalUser[timeOrder[g] as number] as number) + 1;
    start[at] = (start[at] as number) + 1;
  }
  for (let u = 0; u < load.users.length; u++) start[u + 1] = (start[u + 1] as number) + (start[u] as number);
  const next = start.slice(0, load.users.length);
  const signals = new Uint32Array(n);
  for (let g = 0; g < n; g++) {
    const k = timeOrder[g] as number;
    const u = signalUser[k] as number;
    const at = next[u] as number;
    signals[at] = k;
    next[u] = at + 1;
  }
  return { start, signals };
}

/**
 * Signal k's terms: its post's terms scaled by its strength, made once per (post, strength):
 * the same products as scaling the post's unit vector for every signal.
 */
function scaledTerms(load: InterestLoad): (k: number) => InterestTerms {
  const scaled = new Array<{ amount: number; terms: InterestTerms }[] | undefined>(load.postTermStart.length - 1);
  return (k) => {
    const post = load.signalPost[k] as number;
    const amount = load.signalAmount[k] as number;
    let known = scaled[post];
    if (!known) scaled[post] = known = [];
    for (const s of known) if (s.amount === amount) return s.terms;
    const made: [string, number][] = [];
    for (let t = load.postTermStart[post] as number; t < (load.postTermStart[post + 1] as number); t++) {
      made.push([load.terms[load.postTermIds[t] as number] as string, amount * (load.postTermWeights[t] as number)]);
    }
    known.push({ amount, terms: made });
    return made;
  };
}

/** User k's vector of `rows` in its stored form (its keys parsed from their JSON only if asked for). */
export function storedInterest(rows: InterestRows, k: number): StoredDecayedSums {
  const keysJson = rows.keysJson[k] as string;
  const values = rows.weights.subarray(rows.weightStart[k], rows.weightStart[k + 1]);
  const refMs = rows.refMs[k] as number;
  const latestMs = rows.latestMs[k] as number;
  return {
    refMs,
    latestMs,
    values,
    keysJson,
    get keys(): string[] {
      return JSON.parse(keysJson) as string[];
    },
  };
}

/**
 * The interest vectors of a bulk load of interactions (demo seeding, benchmarks), computed
 * from numbers only so that the work can move to a worker thread (interest-vectors.worker.ts)
 * while the loading thread writes rows: each post's unit term vector once, then every signal
 * in time order through `addInterest`, as live writes would have added them, so the stored
 * vectors are the live path's to the last bit.
 */
import { addInterest, interestVector, type DecayedSums, type InterestTerms, type StoredDecayedSums } from '../../src/ranking/index.js';

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

/** Computes every user's interest vector of `load` (see the module's comment). */
export function interestRows(load: InterestLoad): InterestRows {
  const vectors = new Array<DecayedSums | undefined>(load.users.length);
  // A post's terms scaled by a strength, made once per (post, strength): the same products as
  // scaling its unit vector for every signal.
  const scaled = new Array<{ amount: number; terms: InterestTerms }[] | undefined>(load.postTermStart.length - 1);
  for (const k of load.timeOrder) {
    const user = load.signalUser[k] as number;
    const post = load.signalPost[k] as number;
    const amount = load.signalAmount[k] as number;
    let known = scaled[post];
    if (!known) scaled[post] = known = [];
    let terms: InterestTerms | undefined;
    for (const s of known) if (s.amount === amount) terms = s.terms;
    if (!terms) {
      const made: [string, number][] = [];
      for (let t = load.postTermStart[post] as number; t < (load.postTermStart[post + 1] as number); t++) {
        made.push([load.terms[load.postTermIds[t] as number] as string, amount * (load.postTermWeights[t] as number)]);
      }
      known.push({ amount, terms: (terms = made) });
    }
    addInterest((vectors[user] ??= interestVector()), terms, load.signalAtMs[k] as number);
  }
  const order = load.users.map((_, u) => u).filter((u) => vectors[u] !== undefined);
  order.sort((a, b) => ((load.users[a] as string) < (load.users[b] as string) ? -1 : 1));
  const stored = order.map((u) => (vectors[u] as DecayedSums).stored());
  const weightStart = new Int32Array(stored.length + 1);
  stored.forEach((s, k) => (weightStart[k + 1] = (weightStart[k] as number) + s.values.length));
  const weights = new Float64Array(weightStart[stored.length] as number);
  stored.forEach((s, k) => weights.set(s.values, weightStart[k]));
  return {
    users: order.map((u) => load.users[u] as string),
    refMs: Float64Array.from(stored, (s) => s.refMs),
    latestMs: Float64Array.from(stored, (s) => s.latestMs),
    keysJson: stored.map((s) => s.keysJson ?? JSON.stringify(s.keys)),
    weightStart,
    weights,
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

/**
 * Many time-decayed sums sharing one half-life, kept "forward-decayed": each key stores
 * its value at one shared reference instant. Adding `amount` at `t` adds
 * amount·2^((t − ref)/h); the value at `now` is the stored value times 2^((ref − now)/h).
 * So an update is a multiply-add (one power per instant, not per key), a key costs one
 * number instead of a {value, asOf} object, and ordering keys by strength needs no decay
 * at all, because every key decays by the same factor. The reference moves forward
 * (rescaling every value) long before a factor could overflow.
 *
 * Keys and values are parallel arrays (insertion order) with a key → position map: a
 * key costs a map entry and 8 bytes, the stored form is a copy of the arrays, and a writer
 * can compute the stored form after an addition without copying the map
 * (`storedAfterAdding`), with the same arithmetic as `addAll`, to the last bit.
 */

/** Keys and their values at one instant, as parallel arrays. */
export interface DecayedColumns {
  readonly keys: readonly string[];
  readonly values: Float64Array;
}

/**
 * A DecayedSums as stored (the persisted interest vector): the raw forward-decayed values
 * with their reference and latest instants, so that restoring gives the same numbers to
 * the last bit. `keysJson`, when present, is `JSON.stringify(keys)` already made.
 */
export interface StoredDecayedSums {
  readonly refMs: number;
  readonly latestMs: number;
  readonly keys: readonly string[];
  readonly values: Float64Array;
  readonly keysJson?: string;
}

/** Past this many half-lives after the reference, values are rescaled to a new one. */
const REBASE_HALF_LIVES = 256;

export class DecayedSums {
  /** Key -> position in `keyList` / `valueList`. */
  private readonly positions = new Map<string, number>();
  private keyList: string[] = [];
  private valueList = new Float64Array(8);
  private refMs: number | undefined;
  /** The latest instant anything was added at: values are never grown back before it. */
  private latestMs = -Infinity;
  /**
   * JSON.stringify of the first `keysJsonCount` keys, once asked for: extended by the keys added
   * since when next asked (a cached profile gains keys with most signals, and each signal's
   * writer needs the JSON of every key), dropped when keys are pruned.
   */
  private keysJson: string | undefined;
  private keysJsonCount = 0;

  constructor(readonly halfLifeMs: number) {}

  /** Sums restored from their stored form (see `stored`). */
  static fromStored(halfLifeMs: number, stored: StoredDecayedSums): DecayedSums {
    const sums = new DecayedSums(halfLifeMs);
    if (stored.keys.length === 0) return sums;
    sums.refMs = stored.refMs;
    sums.latestMs = stored.latestMs;
    sums.keyList = stored.keys.slice();
    sums.valueList = Float64Array.from(stored.values);
    for (let i = 0; i < sums.keyList.length; i++) sums.positions.set(sums.keyList[i]!, i);
    sums.keysJson = stored.keysJson;
    sums.keysJsonCount = stored.keysJson === undefined ? 0 : sums.keyList.length;
    return sums;
  }

  /** Number of keys. */
  get size(): number {
    return this.keyList.length;
  }

  /** Adds `amount` happening at `atMs` to `key`. Adding −amount at the same instant undoes it. */
  add(key: string, amount: number, atMs: number): void {
    const factor = this.factorAt(atMs);
    this.addRaw(key, amount * factor);
  }

  /**
   * Adds several amounts happening at the same instant (one power for all of them). Adding
   * nothing changes nothing (not even the reference instant), so that sums restored from
   * their stored form stay equal, to the last bit, to sums kept in memory.
   */
  addAll(amounts: readonly (readonly [string, number])[], atMs: number): void {
    if (amounts.length === 0) return;
    const factor = this.factorAt(atMs);
    for (const [key, amount] of amounts) this.addRaw(key, amount * factor);
  }

  /**
   * The stored form these sums would have after `addAll(amounts, atMs)` and, when they then
   * hold more than `pruneAbove` keys, `keepStrongest(keepAfterPrune)` — without changing
   * these sums (they may be a cached profile's) and without copying the key map.
   */
  storedAfterAdding(
    amounts: readonly (readonly [string, number])[],
    atMs: number,
    pruneAbove: number,
    keepAfterPrune: number,
  ): StoredDecayedSums {
    if (amounts.length === 0) return this.stored();
    const refMs = this.refMs ?? atMs;
    if ((atMs - refMs) / this.halfLifeMs > REBASE_HALF_LIVES) {
      const copy = this.clone();
      copy.addAll(amounts, atMs);
      if (copy.size > pruneAbove) copy.keepStrongest(keepAfterPrune);
      return copy.stored();
    }
    const factor = Math.pow(2, (atMs - refMs) / this.halfLifeMs);
    const count = this.keyList.length;
    const sum = addScaled(this.keyList, this.valueList, count, amounts, factor, (key) => this.positions.get(key));
    const { added, values, size } = sum;
    // The stored form must not share this object's key list, which later additions change.
    const keys = added === undefined ? this.keyList.slice() : sum.keys;
    const latestMs = Math.max(this.latestMs, atMs);
    if (size > pruneAbove) return pruned(refMs, latestMs, keys, values.subarray(0, size), keepAfterPrune);
    const base = this.json();
    const keysJson =
      added === undefined ? base : base.slice(0, -1) + (count > 0 ? ',' : '') + added.map((k) => JSON.stringify(k)).join(',') + ']';
    return { refMs, latestMs, keys, values: values.slice(0, size), keysJson };
  }

  /** The decayed value of `key` at `nowMs` (0 for an unknown key). */
  valueAt(key: string, nowMs: number): number {
    const i = this.positions.get(key);
    return i === undefined ? 0 : this.valueList[i]! * this.decayTo(nowMs);
  }

  /** Every key with its decayed value at `nowMs`, in insertion order. */
  entriesAt(nowMs: number): [string, number][] {
    const scale = this.decayTo(nowMs);
    return this.keyList.map((key, i): [string, number] => [key, this.valueList[i]! * scale]);
  }

  /** Every key and its decayed value at `nowMs` as parallel arrays (compact, for caching). */
  columnsAt(nowMs: number): DecayedColumns {
    const scale = this.decayTo(nowMs);
    const values = new Float64Array(this.keyList.length);
    for (let i = 0; i < values.length; i++) values[i] = this.valueList[i]! * scale;
    return { keys: this.keyList.slice(), values };
  }

  /** Keeps the `keep` keys of largest magnitude (the same at any instant), dropping the rest. */
  keepStrongest(keep: number): void {
    if (this.keyList.length <= keep) return;
    const kept = strongestPositions(this.valueList.subarray(0, this.keyList.length), keep);
    const keys = kept.map((i) => this.keyList[i]!);
    const values = new Float64Array(Math.max(8, kept.length));
    kept.forEach((from, to) => (values[to] = this.valueList[from]!));
    this.keyList = keys;
    this.valueList = values;
    this.positions.clear();
    keys.forEach((key, i) => this.positions.set(key, i));
    this.keysJson = undefined;
  }

  /** An independent copy (the same numbers to the last bit). */
  clone(): DecayedSums {
    return DecayedSums.fromStored(this.halfLifeMs, this.stored());
  }

  /** The raw values with their reference instant, to persist (see `fromStored`). */
  stored(): StoredDecayedSums {
    return {
      refMs: this.refMs ?? 0,
      latestMs: Number.isFinite(this.latestMs) ? this.latestMs : 0,
      keys: this.keyList.slice(),
      values: this.valueList.slice(0, this.keyList.length),
      keysJson: this.json(),
    };
  }

  private json(): string {
    const count = this.keyList.length;
    if (this.keysJson === undefined) this.keysJson = JSON.stringify(this.keyList);
    else if (this.keysJsonCount < count) {
      const added = this.keyList.slice(this.keysJsonCount).map((key) => JSON.stringify(key));
      this.keysJson = `${this.keysJson.slice(0, -1)}${this.keysJsonCount > 0 ? ',' : ''}${added.join(',')}]`;
    }
    this.keysJsonCount = count;
    return this.keysJson;
  }

  private addRaw(key: string, raw: number): void {
    let i = this.positions.get(key);
    if (i === undefined) {
      i = this.keyList.length;
      if (i === this.valueList.length) {
        const grown = new Float64Array(i * 2);
        grown.set(this.valueList);
        this.valueList = grown;
      }
      this.keyList.push(key);
      this.positions.set(key, i);
      this.valueList[i] = 0;
    }
    this.valueList[i] = this.valueList[i]! + raw;
  }

  /** 2^((t − ref)/h) for an amount added at `atMs`, moving the reference first when needed. */
  private factorAt(atMs: number): number {
    if (atMs > this.latestMs) this.latestMs = atMs;
    if (this.refMs === undefined) this.refMs = atMs;
    if ((atMs - this.refMs) / this.halfLifeMs > REBASE_HALF_LIVES) this.rebase(atMs);
    return Math.pow(2, (atMs - this.refMs) / this.halfLifeMs);
  }

  /** The factor from stored values to values at `nowMs` (or at the latest addition, if later). */
  private decayTo(nowMs: number): number {
    if (this.refMs === undefined) return 0;
    return Math.pow(2, (this.refMs - Math.max(nowMs, this.latestMs)) / this.halfLifeMs);
  }

  private rebase(newRefMs: number): void {
    const scale = Math.pow(2, (this.refMs! - newRefMs) / this.halfLifeMs);
    for (let i = 0; i < this.keyList.length; i++) this.valueList[i] = this.valueList[i]! * scale;
    this.refMs = newRefMs;
  }
}

/**
 * `DecayedSums.fromStored(halfLifeMs, stored).storedAfterAdding(…)`, to the last bit, without
 * restoring the sums: a writer that read the stored vector from the database (its user's
 * profile not in memory) needs only the positions of the amounts' keys, found in one pass over
 * the stored keys, not a map of every key and two copies of the arrays (a third of a write's
 * allocations, with the map). `stored` is not changed; the result may share its keys array.
 */
export function storedAfterAddingTo(
  halfLifeMs: number,
  stored: StoredDecayedSums,
  amounts: readonly (readonly [string, number])[],
  atMs: number,
  pruneAbove: number,
  keepAfterPrune: number,
): StoredDecayedSums {
  const count = stored.keys.length;
  const refMs = stored.refMs;
  // An empty vector (its instants are not kept), a rebase or nothing added: the general path.
  if (count === 0 || amounts.length === 0 || (atMs - refMs) / halfLifeMs > REBASE_HALF_LIVES) {
    return DecayedSums.fromStored(halfLifeMs, stored).storedAfterAdding(amounts, atMs, pruneAbove, keepAfterPrune);
  }
  const positions = new Map<string, number>();
  for (const [key] of amounts) positions.set(key, -1);
  let missing = positions.size;
  for (let i = 0; i < count && missing > 0; i++) {
    if (positions.get(stored.keys[i]!) === -1) {
      positions.set(stored.keys[i]!, i);
      missing -= 1;
    }
  }
  const factor = Math.pow(2, (atMs - refMs) / halfLifeMs);
  const { added, keys, values, size } = addScaled(stored.keys, stored.values, count, amounts, factor, (key) => {
    const i = positions.get(key)!;
    return i === -1 ? undefined : i;
  });
  const latestMs = Math.max(stored.latestMs, atMs);
  if (size > pruneAbove) return pruned(refMs, latestMs, keys, values.subarray(0, size), keepAfterPrune);
  const base = stored.keysJson?.endsWith(']') === true ? stored.keysJson : JSON.stringify(stored.keys);
  const keysJson = added === undefined ? base : base.slice(0, -1) + ',' + added.map((k) => JSON.stringify(k)).join(',') + ']';
  return { refMs, latestMs, keys, values: values.slice(0, size), keysJson };
}

/**
 * The first `count` of `baseValues` with `amounts` added, each scaled by `factor`: a key at a
 * position (`positionOf`) adds there, another is appended after `baseKeys` (once, however often
 * it comes). `keys` is `baseKeys` itself when nothing was appended; `values` may be longer than
 * `size`.
 */
function addScaled(
  baseKeys: readonly string[],
  baseValues: Float64Array,
  count: number,
  amounts: readonly (readonly [string, number])[],
  factor: number,
  positionOf: (key: string) => number | undefined,
): { added: string[] | undefined; keys: readonly string[]; values: Float64Array; size: number } {
  let added: string[] | undefined;
  let addedAt: Map<string, number> | undefined;
  const values = new Float64Array(count + amounts.length);
  values.set(baseValues.subarray(0, count));
  for (const [key, amount] of amounts) {
    let i = positionOf(key) ?? addedAt?.get(key);
    if (i === undefined) {
      added ??= [];
      addedAt ??= new Map();
      i = count + added.length;
      added.push(key);
      addedAt.set(key, i);
      values[i] = 0;
    }
    values[i] = values[i]! + amount * factor;
  }
  const keys = added === undefined ? baseKeys : [...baseKeys, ...added];
  return { added, keys, values, size: count + (added?.length ?? 0) };
}

/** Stored sums of the `keep` strongest of `values` (what keepStrongest keeps), with their keys. */
function pruned(refMs: number, latestMs: number, keys: readonly string[], values: Float64Array, keep: number): StoredDecayedSums {
  const kept = strongestPositions(values, keep);
  return { refMs, latestMs, keys: kept.map((i) => keys[i]!), values: Float64Array.from(kept, (i) => values[i]!) };
}

/**
 * Positions of the `keep` values of largest magnitude, in position order (ties keep the
 * earlier position, as a stable sort would): what keepStrongest keeps.
 */
function strongestPositions(values: Float64Array, keep: number): number[] {
  const order = Array.from(values, (_, i) => i).sort((a, b) => Math.abs(values[b]!) - Math.abs(values[a]!));
  return order.slice(0, keep).sort((a, b) => a - b);
}

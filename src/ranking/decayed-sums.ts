/**
 * Many time-decayed sums sharing one half-life, kept "forward-decayed": each key stores
 * its value at one shared reference instant. Adding `amount` at `t` adds
 * amount·2^((t − ref)/h); the value at `now` is the stored value times 2^((ref − now)/h).
 * So an update is a multiply-add (one power per instant, not per key), a key costs one
 * number instead of a {value, asOf} object, and ordering keys by strength needs no decay
 * at all, because every key decays by the same factor. The reference moves forward
 * (rescaling every value) long before a factor could overflow.
 */

/** Keys and their values at one instant, as parallel arrays. */
export interface DecayedColumns {
  readonly keys: readonly string[];
  readonly values: Float64Array;
}

/**
 * A DecayedSums as stored (the persisted interest vector): the raw forward-decayed values
 * with their reference and latest instants, so that restoring gives the same numbers to
 * the last bit.
 */
export interface StoredDecayedSums {
  readonly refMs: number;
  readonly latestMs: number;
  readonly keys: readonly string[];
  readonly values: Float64Array;
}

/** Past this many half-lives after the reference, values are rescaled to a new one. */
const REBASE_HALF_LIVES = 256;

export class DecayedSums {
  private readonly values = new Map<string, number>();
  private refMs: number | undefined;
  /** The latest instant anything was added at: values are never grown back before it. */
  private latestMs = -Infinity;

  constructor(readonly halfLifeMs: number) {}

  /** Sums restored from their stored form (see `stored`). */
  static fromStored(halfLifeMs: number, stored: StoredDecayedSums): DecayedSums {
    const sums = new DecayedSums(halfLifeMs);
    if (stored.keys.length === 0) return sums;
    sums.refMs = stored.refMs;
    sums.latestMs = stored.latestMs;
    for (let i = 0; i < stored.keys.length; i++) sums.values.set(stored.keys[i]!, stored.values[i]!);
    return sums;
  }

  /** An independent copy (the same numbers to the last bit). */
  clone(): DecayedSums {
    const copy = new DecayedSums(this.halfLifeMs);
    for (const [key, raw] of this.values) copy.values.set(key, raw);
    copy.refMs = this.refMs;
    copy.latestMs = this.latestMs;
    return copy;
  }

  /** The raw values with their reference instant, to persist (see `fromStored`). */
  stored(): StoredDecayedSums {
    const keys = new Array<string>(this.values.size);
    const values = new Float64Array(this.values.size);
    let i = 0;
    for (const [key, raw] of this.values) {
      keys[i] = key;
      values[i++] = raw;
    }
    return { refMs: this.refMs ?? 0, latestMs: Number.isFinite(this.latestMs) ? this.latestMs : 0, keys, values };
  }

  /** Number of keys. */
  get size(): number {
    return this.values.size;
  }

  /** Adds `amount` happening at `atMs` to `key`. Adding −amount at the same instant undoes it. */
  add(key: string, amount: number, atMs: number): void {
    const factor = this.factorAt(atMs);
    this.values.set(key, (this.values.get(key) ?? 0) + amount * factor);
  }

  /** Adds several amounts happening at the same instant (one power for all of them). */
  addAll(amounts: Iterable<readonly [string, number]>, atMs: number): void {
    const factor = this.factorAt(atMs);
    for (const [key, amount] of amounts) this.values.set(key, (this.values.get(key) ?? 0) + amount * factor);
  }

  /** The decayed value of `key` at `nowMs` (0 for an unknown key). */
  valueAt(key: string, nowMs: number): number {
    const stored = this.values.get(key);
    return stored === undefined ? 0 : stored * this.decayTo(nowMs);
  }

  /** Every key with its decayed value at `nowMs`, in insertion order. */
  entriesAt(nowMs: number): [string, number][] {
    const scale = this.decayTo(nowMs);
    return Array.from(this.values, ([key, stored]): [string, number] => [key, stored * scale]);
  }

  /** Every key and its decayed value at `nowMs` as parallel arrays (compact, for caching). */
  columnsAt(nowMs: number): DecayedColumns {
    const scale = this.decayTo(nowMs);
    const keys = new Array<string>(this.values.size);
    const values = new Float64Array(this.values.size);
    let i = 0;
    for (const [key, stored] of this.values) {
      keys[i] = key;
      values[i++] = stored * scale;
    }
    return { keys, values };
  }

  /** Keeps the `keep` keys of largest magnitude (the same at any instant), dropping the rest. */
  keepStrongest(keep: number): void {
    if (this.values.size <= keep) return;
    const ranked = Array.from(this.values).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
    for (let i = keep; i < ranked.length; i++) this.values.delete(ranked[i]![0]);
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
    for (const [key, stored] of this.values) this.values.set(key, stored * scale);
    this.refMs = newRefMs;
  }
}

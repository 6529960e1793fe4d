/**
 * Term ids and document frequencies of the candidate pool, for TF-IDF. A term lives while
 * a pooled post holds it: when its document frequency falls to 0 (the last post holding
 * it left the pool) its id is freed and reused, so the vocabulary and the dense arrays
 * indexed by term id stay bounded by the pool's own terms, however many posts pass through.
 * Only the pool's slots hold term ids, so a freed id is in no live vector.
 */
export class Vocabulary {
  private readonly ids = new Map<string, number>();
  private readonly terms: string[] = [];
  private readonly freeIds: number[] = [];
  private df = new Int32Array(1024);
  /** Holds by documents not counted in the frequencies (collaborative candidates): a held term keeps its id. */
  private refs = new Int32Array(1024);
  /** Number of documents counted in the document frequencies. */
  docCount = 0;

  /** One past the largest id in use (the length dense term arrays need). */
  get size(): number {
    return this.terms.length;
  }

  /** Number of terms held by pooled posts now. */
  get liveTerms(): number {
    return this.ids.size;
  }

  /** The id of a term, creating one (or reusing a freed one) for a new term; count it before it can be freed. */
  intern(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.freeIds.pop() ?? this.terms.length;
      this.ids.set(term, id);
      if (id === this.terms.length) this.terms.push(term);
      else this.terms[id] = term;
      if (id >= this.df.length) {
        const grown = new Int32Array(this.df.length * 2);
        grown.set(this.df);
        this.df = grown;
        const refs = new Int32Array(grown.length);
        refs.set(this.refs);
        this.refs = refs;
      }
    }
    return id;
  }

  /** The id of a known term, or undefined. */
  find(term: string): number | undefined {
    return this.ids.get(term);
  }

  /** The term of an id. */
  term(id: number): string {
    return this.terms[id] ?? '';
  }

  /** Counts (+1) or uncounts (−1) one document holding these distinct term ids; a term no document holds is freed. */
  count(termIds: Int32Array, sign: 1 | -1): void {
    for (const id of termIds) {
      const df = (this.df[id] ?? 0) + sign;
      this.df[id] = df;
      if (df <= 0) this.free(id);
    }
    this.docCount += sign;
  }

  /** Holds (+1) or releases (−1) these term ids for a document the frequencies do not count; a term nothing holds is freed. */
  hold(termIds: Int32Array, sign: 1 | -1): void {
    for (const id of termIds) {
      this.refs[id] = (this.refs[id] ?? 0) + sign;
      if ((this.df[id] ?? 0) <= 0) this.free(id);
    }
  }

  private free(id: number): void {
    if ((this.refs[id] ?? 0) > 0) return;
    const term = this.terms[id];
    if (term === undefined || term === '' || this.ids.get(term) !== id) return;
    this.ids.delete(term);
    this.terms[id] = '';
    this.df[id] = 0;
    this.refs[id] = 0;
    this.freeIds.push(id);
  }

  /** Smoothed idf = ln((N + 1) / (df + 1)) + 1: positive even for a term in every post. */
  idf(id: number): number {
    return Math.log((this.docCount + 1) / ((this.df[id] ?? 0) + 1)) + 1;
  }

  /**
   * The L2-normalised TF-IDF vector of a document, keeping its MAX_VECTOR_TERMS strongest
   * terms: they carry most of any cosine, and the ranking pass reads every vector.
   */
  weigh(ids: Int32Array, tf: Float64Array): SparseVector {
    // The strongest terms by insertion into a short sorted list (weight descending, then id):
    // no pair per term, no sort of the whole post (every collaborative candidate fetched and
    // every reweighing of the pool comes through here).
    const keptIds = new Int32Array(Math.min(ids.length, MAX_VECTOR_TERMS));
    const kept = new Float64Array(keptIds.length);
    let n = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const w = (tf[i] ?? 0) * this.idf(id);
      let at = n;
      while (at > 0 && (kept[at - 1]! < w || (kept[at - 1] === w && keptIds[at - 1]! > id))) at--;
      if (at >= kept.length) continue;
      for (let j = Math.min(n, kept.length - 1); j > at; j--) {
        kept[j] = kept[j - 1]!;
        keptIds[j] = keptIds[j - 1]!;
      }
      kept[at] = w;
      keptIds[at] = id;
      if (n < kept.length) n++;
    }
    let sum = 0;
    for (let i = 0; i < n; i++) sum += kept[i]! * kept[i]!;
    const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let i = 0; i < n; i++) kept[i] = kept[i]! * inv;
    return { ids: keptIds, weights: kept };
  }
}

/** Terms kept per post vector (posts rarely have more distinct salient terms). */
export const MAX_VECTOR_TERMS = 12;

/** A sparse unit vector: term ids and their weights, in the same order. */
export interface SparseVector {
  readonly ids: Int32Array;
  readonly weights: Float64Array;
}

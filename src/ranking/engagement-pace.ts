/**
 * The community's pace: how old a post typically is when it is engaged with. On a fast feed
 * most favourites come within hours of the post, on a catalogue months or years after it —
 * and the engagement that predicts the next engagement is the recent one on the first, all of
 * it on the second (bench/README.md, "Engagement at the community's pace"). The ranking reads
 * the engagement decayed at the half-life this pace names (`CandidateIndex.decayedEngagement`),
 * so the same shipped ranking is "recently popular" on a feed and "popular" on a catalogue,
 * from the first interactions on, before any fit.
 *
 * The pace is the median age at engagement of the last PACE_WINDOW dated engagements of pooled
 * posts, placed on the ladder of PACE_HALF_LIVES_HOURS (each rung's bucket spans the geometric
 * midpoints to its neighbours); a median above ALL_TIME_PACE_HOURS, or fewer than
 * PACE_MIN_SAMPLES dated engagements, means all-time counts (the ranking as before). The same
 * window also gives the median itself, in finer buckets and steady (`medianAgeHours`): a feed's
 * starting recency half-life follows it (src/ranking/ranking-default.ts).
 */

/** The half-lives engagement may decay at (hours): the decayed sums kept per pooled post, one per rung. */
export const PACE_HALF_LIVES_HOURS: readonly number[] = [2, 6, 24, 72, 240];

/** A median age at engagement above this (30 days): all-time counts, a catalogue's. */
export const ALL_TIME_PACE_HOURS = 720;

/** Dated engagements the pace is measured over (the newest). */
export const PACE_WINDOW = 4096;

/** Fewer dated engagements than this: not enough to tell, all-time counts. */
export const PACE_MIN_SAMPLES = 100;

/** "All-time": the rung index of no decay. */
export const ALL_TIME = -1;

const HOUR_MS = 3_600_000;

/** Upper bounds (hours, exclusive) of each rung's bucket: the geometric midpoints, then ALL_TIME_PACE_HOURS. */
const BUCKET_BOUNDS: readonly number[] = PACE_HALF_LIVES_HOURS.map((h, r) => {
  const next = PACE_HALF_LIVES_HOURS[r + 1];
  return next === undefined ? ALL_TIME_PACE_HOURS : Math.sqrt(h * next);
});

/** The bucket of an age at engagement: a rung index, or PACE_HALF_LIVES_HOURS.length past ALL_TIME_PACE_HOURS. */
export function paceBucket(ageMs: number): number {
  const hours = ageMs / HOUR_MS;
  for (let r = 0; r < BUCKET_BOUNDS.length; r++) if (hours < BUCKET_BOUNDS[r]!) return r;
  return BUCKET_BOUNDS.length;
}

/** The rung (PACE_HALF_LIVES_HOURS index, or ALL_TIME) nearest a half-life in hours; null or non-finite: ALL_TIME. */
export function rungOfHalfLife(hours: number | null): number {
  if (hours === null || !(hours > 0) || !Number.isFinite(hours)) return ALL_TIME;
  const bucket = paceBucket(hours * HOUR_MS);
  return bucket >= PACE_HALF_LIVES_HOURS.length ? ALL_TIME : bucket;
}

/**
 * The fine buckets `medianAgeHours` reads: FINE_PER_DOUBLING per doubling of the age from
 * FINE_FIRST_HOURS (bucket 0 holds every younger age) up to past ALL_TIME_PACE_HOURS (the last
 * bucket holds every older one).
 */
const FINE_PER_DOUBLING = 4;
const FINE_FIRST_HOURS = 1 / 16;
const FINE_BUCKETS = Math.ceil(Math.log2(ALL_TIME_PACE_HOURS / FINE_FIRST_HOURS) * FINE_PER_DOUBLING) + 2;

/** The fine bucket of an age at engagement. */
function fineBucket(ageMs: number): number {
  const hours = ageMs / HOUR_MS;
  if (!(hours >= FINE_FIRST_HOURS)) return 0;
  return Math.min(FINE_BUCKETS - 1, 1 + Math.floor(Math.log2(hours / FINE_FIRST_HOURS) * FINE_PER_DOUBLING));
}

/** The geometric middle of a fine bucket, in hours (bucket 0: half the first bound). */
function fineMiddleHours(bucket: number): number {
  if (bucket === 0) return FINE_FIRST_HOURS / 2;
  return FINE_FIRST_HOURS * Math.pow(2, (bucket - 0.5) / FINE_PER_DOUBLING);
}

/**
 * The median `medianAgeHours` reports moves only when the window's median is this many fine
 * buckets away from it (about 40%): a median hovering at the edge between two buckets (and so,
 * maybe, between two starting points, whose change drops every cached list) reads steady.
 */
const MEDIAN_STEADY_BUCKETS = 2;

/** A sliding window of ages at engagement, counted per bucket (O(1) per engagement). */
export class EngagementPace {
  private readonly buckets = new Int32Array(PACE_HALF_LIVES_HOURS.length + 1);
  private readonly window = new Uint8Array(PACE_WINDOW);
  private readonly fine = new Int32Array(FINE_BUCKETS);
  private readonly fineWindow = new Uint8Array(PACE_WINDOW);
  private next = 0;
  private filled = 0;
  /** Counts the window's changes: `medianAgeHours` is computed again only after one. */
  private changes = 0;
  private medianAtChange = -1;
  private median: number | null = null;
  /** The fine bucket `medianAgeHours` reports (-1: none yet); see MEDIAN_STEADY_BUCKETS. */
  private reportedBucket = -1;

  /** Dated engagements counted (at most PACE_WINDOW). */
  get samples(): number {
    return this.filled;
  }

  /** One engagement `ageMs` after its post was created (negative ages, a post dated after it, count as 0). */
  add(ageMs: number): void {
    const bucket = paceBucket(Math.max(0, ageMs));
    const fine = fineBucket(Math.max(0, ageMs));
    if (this.filled === PACE_WINDOW) {
      this.buckets[this.window[this.next]!]! -= 1;
      this.fine[this.fineWindow[this.next]!]! -= 1;
    } else this.filled += 1;
    this.window[this.next] = bucket;
    this.buckets[bucket]! += 1;
    this.fineWindow[this.next] = fine;
    this.fine[fine]! += 1;
    this.changes += 1;
    this.next = (this.next + 1) % PACE_WINDOW;
  }

  /** The rung of the median age at engagement (PACE_HALF_LIVES_HOURS index), or ALL_TIME. */
  rung(): number {
    if (this.filled < PACE_MIN_SAMPLES) return ALL_TIME;
    const half = this.filled / 2;
    let seen = 0;
    for (let b = 0; b < this.buckets.length; b++) {
      seen += this.buckets[b]!;
      if (seen >= half) return b >= PACE_HALF_LIVES_HOURS.length ? ALL_TIME : b;
    }
    return ALL_TIME;
  }

  /**
   * Whether the community is measured to be a catalogue: enough dated engagements, and their
   * median age past ALL_TIME_PACE_HOURS (too few to tell is not a catalogue).
   */
  catalogue(): boolean {
    return this.filled >= PACE_MIN_SAMPLES && this.rung() === ALL_TIME;
  }

  /** The half-life the pace names, in hours (null: all-time counts). */
  halfLifeHours(): number | null {
    const r = this.rung();
    return r === ALL_TIME ? null : PACE_HALF_LIVES_HOURS[r]!;
  }

  /**
   * The median age at engagement in hours, to within a third either way and steady (the middle
   * of its fine bucket, four per doubling, moved only when the window's median is
   * MEDIAN_STEADY_BUCKETS from it); null with fewer than PACE_MIN_SAMPLES dated engagements or a
   * median past ALL_TIME_PACE_HOURS (a catalogue).
   */
  medianAgeHours(): number | null {
    if (this.medianAtChange !== this.changes) {
      this.median = this.computeMedianAgeHours();
      this.medianAtChange = this.changes;
    }
    return this.median;
  }

  private computeMedianAgeHours(): number | null {
    if (this.filled < PACE_MIN_SAMPLES) {
      this.reportedBucket = -1;
      return null;
    }
    const half = this.filled / 2;
    let seen = 0;
    let b = 0;
    while (b < FINE_BUCKETS - 1 && (seen += this.fine[b]!) < half) b++;
    if (this.reportedBucket < 0 || Math.abs(b - this.reportedBucket) >= MEDIAN_STEADY_BUCKETS) this.reportedBucket = b;
    const hours = fineMiddleHours(this.reportedBucket);
    return hours >= ALL_TIME_PACE_HOURS || this.catalogue() ? null : hours;
  }

  /** Forgets everything (a reload). */
  clear(): void {
    this.changes += 1;
    this.reportedBucket = -1;
    this.fine.fill(0);
    this.buckets.fill(0);
    this.next = 0;
    this.filled = 0;
  }
}

/**
 * The analysis of an interleaving experiment. The unit is the user: each user's clicks on
 * interleaved items are credited to the team (ranker) that contributed the item, and the
 * user prefers the ranker with more credited clicks (equal credits are a tie; no credited
 * click, no preference). Preference share = wins_A / (wins_A + wins_B), ties excluded and
 * reported. Under "no difference" each user with a preference prefers A with probability
 * 1/2 (team draft gives both rankers the same chance at every position), so the test is
 * the exact binomial sign test and the interval the Wilson score interval (fixed horizon: one
 * planned read); read at any time, the always-valid p-value and confidence sequence of
 * sequential-share.ts (the A/B tests' mSPRT and tuning).
 */
import { normalQuantile } from '../stats/distributions.js';
import { UNRECORDED_ANALYSIS_METHOD, type AnalysisMethod, type SequentialTuning } from '../stats/sequential.js';
import { interleavingTuning, sequentialSharePValue, shareConfidenceSequence, wilsonScoreInterval } from './sequential-share.js';

/** One user's credited clicks: on team A's items and on team B's items. */
export interface UserCredit {
  readonly a: number;
  readonly b: number;
}

/** What one user's credits say. */
export type Preference = 'A' | 'B' | 'tie' | 'none';

/** The user prefers the team with more credited clicks; 'tie' on equal credits, 'none' without any. */
export function preferenceOf(credit: UserCredit): Preference {
  if (credit.a === 0 && credit.b === 0) return 'none';
  if (credit.a === credit.b) return 'tie';
  return credit.a > credit.b ? 'A' : 'B';
}

/** Preference counts over users, and the credited clicks per team. */
export interface PreferenceCounts {
  users: number;
  winsA: number;
  winsB: number;
  ties: number;
  noClicks: number;
  creditedA: number;
  creditedB: number;
}

/** Counts preferences and credits over users (one streaming pass). */
export function countPreferences(users: Iterable<UserCredit>): PreferenceCounts {
  const counts: PreferenceCounts = { users: 0, winsA: 0, winsB: 0, ties: 0, noClicks: 0, creditedA: 0, creditedB: 0 };
  for (const credit of users) {
    counts.users++;
    counts.creditedA += credit.a;
    counts.creditedB += credit.b;
    const preference = preferenceOf(credit);
    if (preference === 'A') counts.winsA++;
    else if (preference === 'B') counts.winsB++;
    else if (preference === 'tie') counts.ties++;
    else counts.noClicks++;
  }
  return counts;
}

/**
 * Exact two-sided binomial sign test of share = 1/2: p = min(1, 2·P(X ≤ min(k, n − k))) with
 * X ~ Binomial(n, 1/2), P(X ≤ m) = Σ_{i≤m} C(n, i)·2⁻ⁿ (summed in log space, so n may be
 * millions). Null when n = 0.
 */
export function signTestPValue(k: number, n: number): number | null {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || k > n) throw new RangeError(`sign test needs 0 <= k <= n (got ${k}, ${n})`);
  if (n === 0) return null;
  const m = Math.min(k, n - k);
  if (2 * m >= n) return 1;
  // ln C(n, m) − n·ln 2, then Σ_{i≤m} C(n, i) / C(n, m) by the ratio C(n, i−1)/C(n, i) = i/(n − i + 1).
  let lnTop = -n * Math.LN2;
  for (let j = 1; j <= m; j++) lnTop += Math.log((n - m + j) / j);
  let ratio = 1;
  let sum = 1;
  for (let i = m; i > 0; i--) {
    ratio *= i / (n - i + 1);
    sum += ratio;
    if (ratio < sum * 1e-17) break;
  }
  return Math.min(1, 2 * Math.exp(lnTop + Math.log(sum)));
}

/**
 * Wilson score interval of a proportion k/n at `confidenceLevel`:
 * (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n), z = Φ⁻¹(1 − α/2). Null when n = 0.
 */
export function wilsonInterval(k: number, n: number, confidenceLevel: number): [number, number] | null {
  return wilsonScoreInterval(k, n, normalQuantile(1 - (1 - confidenceLevel) / 2));
}

/** The interleaving verdict: preference share of A, its interval and the sign test. */
export interface InterleavingStatistics extends PreferenceCounts {
  /** winsA / (winsA + winsB); null without any preference. */
  preferenceShare: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  pValue: number | null;
  /** Fewer users with a preference than the minimum sample size: never significant. */
  underpowered: boolean;
  significant: boolean;
  /** How this read was made: fixed (sign test, Wilson) or sequential (always-valid p, confidence sequence). */
  method: AnalysisMethod;
  /** The sequential method's mixing parameter; null with the fixed method. */
  tuning: SequentialTuning | null;
}

export interface InterleavingOptions {
  confidenceLevel: number;
  /** Users with a preference (winsA + winsB) needed before a result may be significant. */
  minimumSampleSize: number;
  /** Default UNRECORDED_ANALYSIS_METHOD (fixed). */
  method?: AnalysisMethod;
}

/**
 * Preference share over users' credits, with (fixed) the Wilson interval and exact sign test,
 * or (sequential) the always-valid p-value and confidence sequence.
 */
export function analyzeInterleaving(users: Iterable<UserCredit>, options: InterleavingOptions): InterleavingStatistics {
  const counts = countPreferences(users);
  const n = counts.winsA + counts.winsB;
  const method = options.method ?? UNRECORDED_ANALYSIS_METHOD;
  const tuning = method === 'sequential' ? interleavingTuning(1 - options.confidenceLevel, options.minimumSampleSize) : null;
  const interval =
    tuning === null
      ? wilsonInterval(counts.winsA, n, options.confidenceLevel)
      : shareConfidenceSequence(counts.winsA, n, tuning.rho_squared, options.confidenceLevel);
  const pValue = tuning === null ? signTestPValue(counts.winsA, n) : sequentialSharePValue(counts.winsA, n, tuning.rho_squared);
  const underpowered = n < options.minimumSampleSize;
  return {
    ...counts,
    preferenceShare: n === 0 ? null : counts.winsA / n,
    ciLow: interval?.[0] ?? null,
    ciHigh: interval?.[1] ?? null,
    pValue,
    underpowered,
    significant: !underpowered && pValue !== null && pValue < 1 - options.confidenceLevel,
    method,
    tuning,
  };
}

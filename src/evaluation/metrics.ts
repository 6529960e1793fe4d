/**
 * Offline ranking metrics of one user's list against the posts they went on to engage with
 * (binary relevance), and catalogue-level ones. Formulas (K = list length cut-off,
 * R = the user's relevant set, rank r from 1):
 * - nDCG@K = DCG/IDCG, DCG = Σ_{r ≤ K, item r ∈ R} 1/log2(r + 1), IDCG = Σ_{r ≤ min(|R|, K)} 1/log2(r + 1);
 * - Recall@K = |top K ∩ R| / |R|;
 * - HitRate@K = 1 when |top K ∩ R| > 0, else 0;
 * - MRR@K = 1/r of the first relevant item in the top K, 0 when none;
 * - novelty@K = mean over the list of −log2((n_i + 1)/(N + 1)), n_i the training users who
 *   engaged with item i, N the training users (self-information, smoothed so an item nobody
 *   engaged with is finite); 0 for an empty list;
 * - coverage@K = |∪ of the users' top K| / catalogue size (a statistic of a set of users).
 * A user with an empty R scores 0 everywhere (the evaluation only scores users with targets).
 */

/** The per-user metrics, in report order. */
export const USER_METRICS = ['ndcg', 'recall', 'hit_rate', 'mrr', 'novelty'] as const;
export type UserMetricName = (typeof USER_METRICS)[number];
/** Every metric reported, coverage (a catalogue metric) last. */
export const EVAL_METRICS = [...USER_METRICS, 'coverage'] as const;
export type EvalMetricName = (typeof EVAL_METRICS)[number];

export type UserMetrics = Record<UserMetricName, number>;

/** The metrics of one list (best first, cut at k) against the relevant set. */
export function userMetrics(
  list: readonly string[],
  relevant: ReadonlySet<string>,
  k: number,
  selfInformation: (id: string) => number,
): UserMetrics {
  const top = list.slice(0, Math.max(0, k));
  let dcg = 0;
  let hits = 0;
  let firstHit = 0;
  top.forEach((id, i) => {
    if (!relevant.has(id)) return;
    hits += 1;
    dcg += 1 / Math.log2(i + 2);
    if (firstHit === 0) firstHit = i + 1;
  });
  let idcg = 0;
  for (let r = 1; r <= Math.min(relevant.size, k); r++) idcg += 1 / Math.log2(r + 1);
  const novelty = top.length === 0 ? 0 : top.reduce((sum, id) => sum + selfInformation(id), 0) / top.length;
  return {
    ndcg: idcg === 0 ? 0 : dcg / idcg,
    recall: relevant.size === 0 ? 0 : hits / relevant.size,
    hit_rate: hits > 0 ? 1 : 0,
    mrr: firstHit === 0 ? 0 : 1 / firstHit,
    novelty,
  };
}

/** −log2((n + 1)/(users + 1)) for an item `n` of `users` training users engaged with. */
export function selfInformation(engagedUsers: number, users: number): number {
  return -Math.log2((engagedUsers + 1) / (users + 1));
}

/** Share of the catalogue appearing in at least one of the lists (cut at k). */
export function catalogueCoverage(lists: Iterable<readonly string[]>, k: number, catalogueSize: number): number {
  if (catalogueSize <= 0) return 0;
  const seen = new Set<string>();
  for (const list of lists) for (const id of list.slice(0, k)) seen.add(id);
  return seen.size / catalogueSize;
}

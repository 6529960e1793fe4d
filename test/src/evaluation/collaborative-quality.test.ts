/**
 * The collaborative signal recovers the co-engagement planted in the synthetic catalogue as
 * well as item-to-item kNN over the full training matrix does, through the server's own
 * ranking code and the co-engagement state kept by the writers' rule (the default window and
 * bounds), and better than the pairing window of 8 and 100 neighbours it had before (issue 25:
 * "each signal recovers what was planted"), and the periodic item–item model (EASE, built at
 * the cutoff, src/ranking/item-model.ts) served beside that state adds to it. Seed 5: the
 * bench's seeds 1–3 chose the defaults, so this one is held out.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { baselines } from '../../../src/evaluation/baselines.js';
import { bootstrapPairedDifference, drawResamples } from '../../../src/evaluation/bootstrap.js';
import { buildDataset, temporalSplit } from '../../../src/evaluation/dataset.js';
import { EvalState } from '../../../src/evaluation/eval-context.js';
import { generateSynthetic, generatorOptions } from '../../../src/evaluation/generate.js';
import { createInteractionsParser, createPostsParser, toJsonLines } from '../../../src/evaluation/import-format.js';
import { userMetrics } from '../../../src/evaluation/metrics.js';
import { rankingCandidate } from '../../../src/evaluation/rankers.js';
import { DEFAULT_CO_ENGAGEMENT_OPTIONS } from '../../../src/ranking/co-engagement.js';
import { DEFAULT_ITEM_MODEL_OPTIONS, MODEL_BLEND } from '../../../src/ranking/item-model.js';

function catalogue(seed: number) {
  const data = generateSynthetic(generatorOptions('catalogue', { seed }));
  const posts = createPostsParser('posts.jsonl');
  for (const line of toJsonLines(data.statuses).split('\n')) posts.line(line);
  const interactions = createInteractionsParser('interactions.jsonl');
  for (const line of toJsonLines(data.interactions).split('\n')) interactions.line(line);
  return buildDataset(posts.finish(), interactions.finish());
}

/** The collaborative feature alone: what it ranks is what co-engagement says, nothing else. */
const COLLABORATIVE_ONLY = {
  weights: { author_preference: 0, content_engagement: 0, recency: 0, semantic_similarity: 0, collaborative: 1 },
};

describe('the collaborative signal on the synthetic catalogue', () => {
  // Seconds of work: the event loop gets a turn between the states and every 20 users, so the
  // vitest worker can answer its runner (a 60-s RPC timeout; CI saw 19 s held in one block).
  it('ranks users with history about as item kNN does, better than a window of 8 with 100 neighbours, and better still with the item model and its cosine lists', async () => {
    expect(DEFAULT_CO_ENGAGEMENT_OPTIONS).toMatchObject({ window: 16, neighboursPerPost: 200 });
    const split = temporalSplit(catalogue(5), { testFraction: 0.1 });
    await nextTurn();
    const shipped = new EvalState(split);
    await nextTurn();
    const before = new EvalState(split, {}, { window: 8, neighboursPerPost: 100 });
    expect(DEFAULT_ITEM_MODEL_OPTIONS).toMatchObject({ maxItems: 1000, neighbours: 50, lambda: 100 });
    expect(MODEL_BLEND).toBe(1);
    await nextTurn();
    const modelled = new EvalState(split, {}, {}, {});
    expect(modelled.itemModel?.size).toBe(1000);
    await nextTurn();
    // The model without its cosine lists (EASE alone beside the state), as served until 2026-11-28.
    const easeOnly = new EvalState(split, {}, {}, { cosineItems: 0 });
    expect(easeOnly.itemModel?.cosinePosts).toBe(0);
    expect(modelled.itemModel?.cosinePosts).toBeGreaterThan(1000);
    const rankers = [
      rankingCandidate('collaborative', COLLABORATIVE_ONLY, shipped),
      rankingCandidate('collaborative before', COLLABORATIVE_ONLY, before),
      ...baselines(shipped, ['item_knn']),
      rankingCandidate('collaborative with the item model', COLLABORATIVE_ONLY, modelled),
      rankingCandidate('collaborative with EASE alone', COLLABORATIVE_ONLY, easeOnly),
    ];
    const users = split.users.filter((u) => u.history.length > 0);
    expect(users.length).toBeGreaterThan(200);
    const ndcg = rankers.map(() => new Float64Array(users.length));
    for (const [u, user] of users.entries()) {
      if (u % 20 === 0) await nextTurn();
      shipped.advanceTo(user.atMs);
      before.advanceTo(user.atMs);
      modelled.advanceTo(user.atMs);
      easeOnly.advanceTo(user.atMs);
      rankers.forEach((r, i) => (ndcg[i]![u] = userMetrics(r.rank(user, 20), user.targets, 20, () => 0).ndcg));
      shipped.release(user);
      before.release(user);
      modelled.release(user);
      easeOnly.release(user);
    }
    const mean = (v: Float64Array): number => v.reduce((a, b) => a + b, 0) / v.length;
    const [collaborative, previous, knn, withModel, withEase] = ndcg.map(mean) as [number, number, number, number, number];
    // Measured 0.117 with 100 seeds (0.112 with 30) against item kNN's 0.114 (and EASE 0.131, popularity 0.074); the window of 8: 0.100.
    expect(collaborative).toBeGreaterThan(0.9 * knn);
    const gain = bootstrapPairedDifference(drawResamples(users.length, 1000, 2026), ndcg[0]!, ndcg[1]!);
    expect(gain.ci_low).toBeGreaterThan(0);
    expect(previous).toBeLessThan(collaborative);
    // The item model beside the state: measured 0.1215 against the state alone's 0.1167 with 100 seeds,
    // +0.0048 [−0.0004, +0.0100] (with 30 seeds 0.1175 against 0.1114, an interval above 0: the state
    // with more seeds needs the model less; bench/README.md, 2026-11-28).
    const modelGain = bootstrapPairedDifference(drawResamples(users.length, 1000, 2026), ndcg[3]!, ndcg[0]!);
    expect(modelGain.value).toBeGreaterThan(0.003);
    expect(modelGain.ci_high).toBeGreaterThan(0.008);
    expect(withModel).toBeGreaterThan(knn);
    // The cosine lists beside EASE: measured 0.1258 against EASE alone's 0.1215, +0.0043 [−0.0014, +0.0096]
    // (on a catalogue of 6,000 posts the gain is larger: bench/README.md, 2026-11-28 evening).
    const cosineGain = bootstrapPairedDifference(drawResamples(users.length, 1000, 2026), ndcg[3]!, ndcg[4]!);
    expect(cosineGain.value).toBeGreaterThan(0.002);
    expect(cosineGain.ci_high).toBeGreaterThan(0.006);
    expect(withEase).toBeLessThan(withModel);
  }, 180_000);
});

/**
 * A post's TF-IDF vector (`Vocabulary.weigh`): its MAX_VECTOR_TERMS strongest terms, weight
 * descending then term id, L2-normalised — checked against the plain definition (every term
 * weighed, sorted, cut, normalised) on random posts with many equal weights.
 */
import { describe, expect, it } from 'vitest';
import { createRandom, randomInt } from '../../../src/random.js';
import { MAX_VECTOR_TERMS, Vocabulary } from '../../../src/ranking/vocabulary.js';

function byDefinition(vocabulary: Vocabulary, ids: Int32Array, tf: Float64Array): { ids: number[]; weights: number[] } {
  const all = Array.from(ids, (id, i) => ({ id, w: tf[i]! * vocabulary.idf(id) }));
  all.sort((a, b) => b.w - a.w || a.id - b.id);
  const kept = all.slice(0, MAX_VECTOR_TERMS);
  const norm = Math.sqrt(kept.reduce((sum, { w }) => sum + w * w, 0));
  return { ids: kept.map(({ id }) => id), weights: kept.map(({ w }) => (norm > 0 ? w / norm : 0)) };
}

describe('Vocabulary.weigh', () => {
  it('keeps the strongest terms, ties by id, normalised, as the definition does', () => {
    const random = createRandom(41);
    const vocabulary = new Vocabulary();
    const terms = Array.from({ length: 60 }, (_, i) => vocabulary.intern(`t${i}`));
    // Document frequencies from a few values: many terms share an idf, so weights tie.
    for (let d = 0; d < 40; d++) {
      const held = [...new Set(Array.from({ length: 8 }, () => terms[randomInt(random, 12)]!))];
      vocabulary.count(Int32Array.from(held), 1);
    }
    for (let doc = 0; doc < 300; doc++) {
      const size = 1 + randomInt(random, 30);
      const ids = Int32Array.from(new Set(Array.from({ length: size }, () => terms[randomInt(random, terms.length)]!)));
      const tf = Float64Array.from(ids, () => [1, 1, 2, 0.5][randomInt(random, 4)]!);
      const vector = vocabulary.weigh(ids, tf);
      const expected = byDefinition(vocabulary, ids, tf);
      expect([...vector.ids]).toEqual(expected.ids);
      expect(vector.weights.length).toBe(expected.weights.length);
      vector.weights.forEach((w, i) => expect(w).toBeCloseTo(expected.weights[i]!, 12));
    }
  });

  it('gives an empty vector for a post without terms, and zeros when every weight is 0', () => {
    const vocabulary = new Vocabulary();
    expect(vocabulary.weigh(new Int32Array(0), new Float64Array(0))).toEqual({ ids: new Int32Array(0), weights: new Float64Array(0) });
    const id = vocabulary.intern('a');
    expect([...vocabulary.weigh(Int32Array.of(id), Float64Array.of(0)).weights]).toEqual([0]);
  });
});

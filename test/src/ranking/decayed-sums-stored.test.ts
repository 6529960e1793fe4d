/**
 * The stored interest vector is computed by writers without touching the cached profile
 * (`interestAfter` / `storedAfterAdding`, or `interestAfterStored` from the stored form as read), and the profile adds the same terms later
 * (`addInterest`): both must give the same keys, order and numbers to the last bit, through
 * new keys, pruning and restoring from the stored form.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addInterest, DecayedSums, interestAfter, interestAfterStored, interestVector } from '../../../src/ranking/index.js';

const DAY = 86_400_000;
const signal = fc.record({
  terms: fc.uniqueArray(
    fc.tuple(
      fc.constantFrom(...Array.from({ length: 700 }, (_, i) => (i % 50 === 7 ? `t"${i}\\é` : `t${i}`))),
      fc.double({ min: -3, max: 3, noNaN: true }),
    ),
    {
      maxLength: 40,
      selector: ([term]) => term,
    },
  ),
  dayOffset: fc.integer({ min: 0, max: 60 }),
  /**
   * The writer starts from the stored form restored (a cold user), the stored form as read
   * (`interestAfterStored`, with or without its keys' JSON), or the cached profile.
   */
  writer: fc.constantFrom('restored', 'as read', 'as read with JSON', 'profile'),
});

function bits(stored: { keys: readonly string[]; values: Float64Array; refMs: number; latestMs: number }) {
  return { ...stored, values: Buffer.from(stored.values.buffer, stored.values.byteOffset, stored.values.byteLength).toString('hex') };
}

describe('interest vectors stored by writers', () => {
  it('equal, to the last bit, the vector the profile keeps by adding the same terms', () => {
    fc.assert(
      fc.property(fc.array(signal, { maxLength: 60 }), (signals) => {
        const profile = interestVector();
        let stored = interestVector().stored();
        const t0 = Date.UTC(2025, 0, 1);
        for (const { terms, dayOffset, writer } of signals) {
          const atMs = t0 + dayOffset * DAY;
          // The writer: from the stored form (or the cached profile), without changing it.
          const read = { refMs: stored.refMs, latestMs: stored.latestMs, keys: [...stored.keys], values: stored.values.slice() };
          const next =
            writer === 'restored'
              ? interestAfter(interestVector(stored), terms, atMs)
              : writer === 'profile'
                ? interestAfter(profile, terms, atMs)
                : interestAfterStored(writer === 'as read' ? read : { ...read, keysJson: JSON.stringify(read.keys) }, terms, atMs);
          // The profile, when the signal is announced.
          addInterest(profile, terms, atMs);
          const { keysJson, ...rest } = next;
          const { keysJson: keptJson, ...kept } = profile.stored();
          expect(bits(rest)).toEqual(bits(kept));
          if (keysJson !== undefined) expect(keysJson).toBe(JSON.stringify(next.keys));
          // The profile's JSON of its keys, extended key by key, is what JSON.stringify gives.
          expect(keptJson).toBe(JSON.stringify(kept.keys));
          stored = next;
        }
      }),
      { numRuns: 200, seed: 42 },
    );
  });

  it('prunes to the strongest keys in insertion order, as keepStrongest does', () => {
    const sums = new DecayedSums(DAY);
    for (let i = 0; i < 600; i++) sums.add(`k${i}`, (i % 7) - 3 + i / 1000, Date.UTC(2025, 0, 1));
    const copy = sums.clone();
    copy.keepStrongest(256);
    expect(copy.size).toBe(256);
    const kept = copy.entriesAt(Date.UTC(2025, 0, 1)).map(([k]) => Number(k.slice(1)));
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    const weakestKept = Math.min(...copy.entriesAt(Date.UTC(2025, 0, 1)).map(([, v]) => Math.abs(v)));
    const dropped = sums.entriesAt(Date.UTC(2025, 0, 1)).filter(([k]) => copy.valueAt(k, Date.UTC(2025, 0, 1)) === 0);
    for (const [, v] of dropped) expect(Math.abs(v)).toBeLessThanOrEqual(weakestKept);
  });
});

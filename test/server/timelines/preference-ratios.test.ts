/**
 * A user's recommendation_ratio is read once while the ranking state's version of the user is
 * unchanged, and read again as soon as a write about the user is announced (a preference, an
 * interaction), the user is erased or the state reloads.
 */
import { describe, expect, it } from 'vitest';
import { loadRankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { PreferenceRatios, type RatioSource } from '../../../server/timelines/preference-ratios.js';

/** The stored preferences: a ratio per user, and how often each was read. */
class StoredRatios implements RatioSource {
  readonly values = new Map<string, number | null>();
  readonly reads = new Map<string, number>();

  recommendationRatio(userId: string): Promise<number | null> {
    this.reads.set(userId, (this.reads.get(userId) ?? 0) + 1);
    return Promise.resolve(this.values.get(userId) ?? null);
  }
}

async function setup() {
  const state = await loadRankingState(() => Promise.resolve([]));
  const stored = new StoredRatios();
  return { state, stored, ratios: new PreferenceRatios(stored, state) };
}

describe('preference ratios for the timelines', () => {
  it('reads a user once while nothing about them changes', async () => {
    const { stored, ratios } = await setup();
    stored.values.set('u1', 0.5);
    for (let i = 0; i < 5; i++) expect(await ratios.recommendationRatio('u1')).toBe(0.5);
    expect(await ratios.recommendationRatio('u2')).toBeNull();
    expect(await ratios.recommendationRatio('u2')).toBeNull();
    expect(stored.reads.get('u1')).toBe(1);
    expect(stored.reads.get('u2')).toBe(1);
  });

  it('sees a new preference as soon as its write is announced, for that user only', async () => {
    const { state, stored, ratios } = await setup();
    stored.values.set('u1', 0.5);
    stored.values.set('u2', 0.2);
    await ratios.recommendationRatio('u1');
    await ratios.recommendationRatio('u2');
    stored.values.set('u1', 0);
    state.userSignalsChanged('u1', { kind: 'preferences', preferences: {} });
    expect(await ratios.recommendationRatio('u1')).toBe(0);
    expect(await ratios.recommendationRatio('u2')).toBe(0.2);
    expect(stored.reads.get('u1')).toBe(2);
    expect(stored.reads.get('u2')).toBe(1);
  });

  it('reads again after an erasure and after a reload', async () => {
    const { state, stored, ratios } = await setup();
    stored.values.set('u1', 0.5);
    await ratios.recommendationRatio('u1');
    stored.values.delete('u1');
    state.userErased('u1');
    expect(await ratios.recommendationRatio('u1')).toBeNull();
    stored.values.set('u1', 0.4);
    await state.reload();
    expect(await ratios.recommendationRatio('u1')).toBe(0.4);
    expect(stored.reads.get('u1')).toBe(3);
  });

  it('a write announced while the ratio is being read is not hidden by it', async () => {
    const { state, stored } = await setup();
    stored.values.set('u1', 0.5);
    // The write lands between the version being taken and the read answering.
    const racing: RatioSource = {
      async recommendationRatio(userId) {
        const before = await stored.recommendationRatio(userId);
        stored.values.set(userId, 0.1);
        state.userSignalsChanged(userId, { kind: 'preferences', preferences: {} });
        return before;
      },
    };
    const ratios = new PreferenceRatios(racing, state);
    expect(await ratios.recommendationRatio('u1')).toBe(0.5);
    expect(await ratios.recommendationRatio('u1')).toBe(0.1);
  });
});

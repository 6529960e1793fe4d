/**
 * The ranking state owns the co-engagement state: writers' `coEngaged` events change it and
 * reach the other instances (local events), other instances' events are applied without
 * being announced again, it is rebuilt from the stored interactions at load, reload and
 * erasure (changes announced while a rebuild reads are kept), and a deleted post leaves it.
 */
import { describe, expect, it } from 'vitest';
import type { CoEngagementEvent } from '../../../src/ranking/index.js';
import type { RankingEventMessage } from '../../../server/ranking-state/ranking-state.events.js';
import { loadRankingState, RankingState } from '../../../server/ranking-state/ranking-state.service.js';

const neighbours = (state: RankingState, id: string): string[] => {
  const out: string[] = [];
  state.coEngagement.forEachNeighbour(id, (n) => out.push(n));
  return out.sort();
};

describe('RankingState co-engagement', () => {
  it('applies coEngaged, announces it to other instances, and applies theirs without announcing them again', () => {
    const a = new RankingState(async () => []);
    const b = new RankingState(async () => []);
    const fromA: RankingEventMessage[] = [];
    const fromB: RankingEventMessage[] = [];
    a.onLocalEvent((m) => fromA.push(m));
    b.onLocalEvent((m) => fromB.push(m));
    a.coEngaged({ postId: 'x', withPostIds: ['y', 'z'], weight: 1 });
    expect(neighbours(a, 'x')).toEqual(['y', 'z']);
    expect(fromA).toEqual([{ type: 'coEngaged', change: { postId: 'x', withPostIds: ['y', 'z'], weight: 1 } }]);
    // The message carries no user.
    expect(JSON.stringify(fromA)).not.toContain('user');
    b.applyRemoteEvent(JSON.parse(JSON.stringify(fromA[0])) as RankingEventMessage);
    expect(neighbours(b, 'x')).toEqual(['y', 'z']);
    expect(fromB).toEqual([]);
  });

  it('is rebuilt from the stored interactions at load, and again after an erasure, keeping changes announced meanwhile', async () => {
    let stored: CoEngagementEvent[] = [
      { userId: 'v', postId: 'a' },
      { userId: 'v', postId: 'b' },
      { userId: 'erased', postId: 'a' },
      { userId: 'erased', postId: 'secret' },
    ];
    // While `gate` is set, a read tells `reading` and waits for the gate.
    let gate: Promise<void> | undefined;
    let reading: (() => void) | undefined;
    const history = async (limit: number): Promise<CoEngagementEvent[]> => {
      // A reload first reads the newest row alone (the ranking's clock, before the pool).
      if (limit === 1) return stored.slice(-1);
      expect(limit).toBe(1000);
      const snapshot = stored.slice(-limit);
      reading?.();
      if (gate !== undefined) await gate;
      return snapshot;
    };
    const state = await loadRankingState(async () => [], { coEngagementHistory: 1000 }, history);
    expect(neighbours(state, 'a')).toEqual(['b', 'secret']);
    // The erased user's rows are deleted, then the erasure is announced; a write commits after the rebuild's read.
    stored = stored.filter((e) => e.userId !== 'erased');
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const started = new Promise<void>((resolve) => (reading = resolve));
    state.userErased('erased');
    await started;
    state.coEngaged({ postId: 'c', withPostIds: ['a'], weight: 1 });
    open();
    await state.erasureApplied();
    expect(neighbours(state, 'a')).toEqual(['b', 'c']);
    expect(neighbours(state, 'secret')).toEqual([]);
    expect(state.coEngagement.engaged('secret')).toBe(0);
  });

  it('drops a deleted post from every list', () => {
    const state = new RankingState(async () => []);
    state.coEngaged({ postId: 'x', withPostIds: ['y'], weight: 1 });
    state.postsDeleted(['y']);
    expect(neighbours(state, 'x')).toEqual([]);
  });

  it('takes its bounds from the options', () => {
    const state = new RankingState(async () => [], {
      coEngagement: { maxPosts: 2, neighboursPerPost: 1, maxBytes: 1 << 20, window: 3, servedPerPost: 1 },
    });
    state.coEngaged({ postId: 'x', withPostIds: ['y', 'z'], weight: 1 });
    expect(state.coEngagementWindow).toBe(3);
    const size = state.cacheSizes().find((c) => c.cache === 'co_engagement');
    expect(size?.entries).toBe(2);
  });
});

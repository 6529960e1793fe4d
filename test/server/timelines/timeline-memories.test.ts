/**
 * The timelines' in-memory bookkeeping on its own: the shown memory (no duplicates, newest
 * last, bounded), the stored-statuses fingerprints, and the recommendation window (one ranked
 * list per user reused across pages; what was shown since skipped through the cursor; a new
 * window when the list runs short or ages out).
 */
import { describe, expect, it } from 'vitest';
import { servedHash, type Recommendation, type RecommendOptions } from '../../../server/recommendations/recommendation.service.js';
import { InstancePages } from '../../../server/timelines/instance-pages.js';
import { RecommendationWindows, WINDOW_MS } from '../../../server/timelines/recommendation-window.js';
import { ShownMemory } from '../../../server/timelines/shown-memory.js';
import { statusFingerprint, StoredStatuses } from '../../../server/timelines/stored-statuses.js';

describe('ShownMemory', () => {
  it('keeps each id once, re-shown ids become the newest, and forgets the oldest beyond its bound', () => {
    const memory = new ShownMemory(5);
    memory.remember('u', ['a', 'b', 'c']);
    for (let i = 0; i < 50; i++) memory.remember('u', ['a', 'b', 'c']);
    expect([...memory.of('u')]).toEqual(['a', 'b', 'c']);
    memory.remember('u', ['d', 'a']);
    expect([...memory.of('u')]).toEqual(['b', 'c', 'd', 'a']);
    memory.remember('u', ['e', 'f']);
    expect([...memory.of('u')]).toEqual(['c', 'd', 'a', 'e', 'f']);
    expect([...memory.of('someone else')]).toEqual([]);
  });
});

describe('InstancePages', () => {
  const status = (id: string, content: string) => ({
    id,
    uri: `https://x.example/s/${id}`,
    content,
    visibility: 'public',
    account: { id: 'a' },
  });

  it('parses the same bytes once, and never hands out a kept page for other bytes of the same length and sample', () => {
    const pages = new InstancePages();
    const bytes = Buffer.from(JSON.stringify([status('1', 'aaaa'), status('2', 'bbbb')]));
    const first = pages.parse(bytes);
    expect(pages.parse(Buffer.from(bytes))).toBe(first);
    // Same length, and the one byte that differs is not sampled (every 61st is): the same key, other bytes.
    const changed = Buffer.from(JSON.stringify([status('1', 'aaab'), status('2', 'bbbb')]));
    expect(changed.length).toBe(bytes.length);
    expect(changed.findIndex((byte, i) => byte !== bytes[i]) % 61).not.toBe(0);
    const parsed = pages.parse(changed);
    expect(parsed).not.toBe(first);
    expect(parsed?.statuses.map((item) => item.status.content)).toEqual(['aaab', 'bbbb']);
    expect(parsed?.statuses[0]?.realBytes.toString('utf8')).toBe(JSON.stringify({ ...status('1', 'aaab'), is_recommendation: false }));
    expect(parsed?.statuses[0]?.fingerprint).not.toBe(first?.statuses[0]?.fingerprint);
    expect(pages.parse(Buffer.from('{"error":"x"}'))).toBeUndefined();
    expect(() => pages.parse(Buffer.from('not json'))).toThrow(SyntaxError);
  });
});

describe('StoredStatuses', () => {
  it('knows a status as stored only with the same fingerprint, and forgets it when its write failed', () => {
    const stored = new StoredStatuses();
    const json = JSON.stringify({ id: '1', favourites_count: 1 });
    const changed = JSON.stringify({ id: '1', favourites_count: 2 });
    expect(statusFingerprint(json)).not.toBe(statusFingerprint(changed));
    stored.storing('1', statusFingerprint(json));
    expect(stored.isStored('1', statusFingerprint(json))).toBe(true);
    expect(stored.isStored('1', statusFingerprint(changed))).toBe(false);
    stored.failed('1', statusFingerprint(json));
    expect(stored.isStored('1', statusFingerprint(json))).toBe(false);
  });
});

/** A recommender over a fixed ranking that pages as RecommendationService does (`after`), recording each call. */
function fakeRecommender(pool: readonly string[]) {
  const calls: { excludeIds: readonly string[]; rankedAtMs: number; served: readonly number[]; limit: number }[] = [];
  return {
    calls,
    async recommend(_userId: string, options: RecommendOptions): Promise<Recommendation[]> {
      const excluded = new Set(options.excludeIds);
      const served = new Set(options.after?.served);
      calls.push({
        excludeIds: options.excludeIds ?? [],
        rankedAtMs: options.after?.rankedAtMs ?? -1,
        served: options.after?.served ?? [],
        limit: options.limit,
      });
      return pool
        .filter((id) => !excluded.has(id) && !served.has(servedHash(id)))
        .slice(0, options.limit)
        .map((id) => ({ item: { post: { id } }, status: { id } }) as unknown as Recommendation);
    },
  };
}

const ids = (list: readonly Recommendation[]) => list.map((r) => r.status.id);

describe('RecommendationWindows', () => {
  const pool = Array.from({ length: 12 }, (_, i) => `p${i}`);

  it('ranks with the same exclusions and instant for every page of an open window, skipping what was shown since', async () => {
    const recommender = fakeRecommender(pool);
    let now = 1_000_000;
    const windows = new RecommendationWindows(recommender, () => now);
    expect(ids(await windows.recommend('u', ['p0'], new Set(['p1']), 3))).toEqual(['p2', 'p3', 'p4']);
    windows.shown('u', ['p2', 'p3']);
    now += 1_000;
    // p5 is on this page (not yet shown): skipped too.
    expect(ids(await windows.recommend('u', ['p5'], new Set(['p1', 'p2', 'p3']), 3))).toEqual(['p4', 'p6', 'p7']);
    const [first, second] = recommender.calls;
    expect(second?.excludeIds).toEqual(first?.excludeIds);
    expect(first?.excludeIds).toEqual(['p0', 'p1']);
    expect(second?.rankedAtMs).toBe(first?.rankedAtMs);
    expect(second?.served).toEqual(['p2', 'p3', 'p5'].map(servedHash));
  });

  it('opens a new window, with what was shown then as its exclusions, when the list runs short or the window ages out', async () => {
    const recommender = fakeRecommender(pool);
    let now = 5_000_000;
    const windows = new RecommendationWindows(recommender, () => now);
    await windows.recommend('u', [], new Set(), 4);
    windows.shown('u', ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8']);
    const shown = new Set(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8']);
    // Three left in the open window: too few for 4, so a new window ranks without the shown ones.
    expect(ids(await windows.recommend('u', [], shown, 4))).toEqual(['p9', 'p10', 'p11']);
    const reopened = recommender.calls.at(-1);
    expect(reopened?.excludeIds).toEqual([...shown]);
    expect(reopened?.served).toEqual([]);
    now += WINDOW_MS;
    await windows.recommend('u', ['p9'], shown, 1);
    expect(recommender.calls.at(-1)?.rankedAtMs).toBe(now);
    expect(recommender.calls.at(-1)?.excludeIds).toEqual(['p9', ...shown]);
  });

  it("makes a user's other pages wait while a window's list is ranked, instead of ranking it again", async () => {
    const recommender = fakeRecommender(pool);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let callsWhileRanking = 0;
    const slow = {
      async recommend(userId: string, options: RecommendOptions): Promise<Recommendation[]> {
        const first = recommender.calls.length === 0;
        const out = await recommender.recommend(userId, options);
        if (first) {
          await gate;
          callsWhileRanking = recommender.calls.length;
        }
        return out;
      },
    };
    const windows = new RecommendationWindows(slow, () => 9_000_000);
    const pages = [
      windows.recommend('u', [], new Set(), 2),
      windows.recommend('u', [], new Set(), 2),
      windows.recommend('u', [], new Set(), 2),
    ];
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    await Promise.all(pages);
    expect(callsWhileRanking).toBe(1);
    expect(recommender.calls).toHaveLength(3);
    expect(new Set(recommender.calls.map((call) => `${call.rankedAtMs}|${call.excludeIds.join(',')}`)).size).toBe(1);
  });
});

/**
 * Engagement at the community's pace (src/ranking/engagement-pace.ts, CandidateIndex's decayed
 * sums): the pace placed on its ladder from the median age at engagement, the decayed sums equal
 * to the direct formula Σ weight · 2^(−(now − at)/h) whatever the order, the dating and the
 * anchor's moves, and the ranking reading them only when asked to.
 */
import { describe, expect, it } from 'vitest';
import { createRandom } from '../../../src/random.js';
import {
  ALL_TIME,
  CandidateIndex,
  DEFAULT_ALGORITHM_CONFIG,
  emptyProfile,
  EngagementPace,
  PACE_HALF_LIVES_HOURS,
  PACE_MIN_SAMPLES,
  PACE_WINDOW,
  paceBucket,
  rankCandidates,
  rungOfHalfLife,
  SHIPPED_RANKING_OPTIONS,
  type InteractionAction,
} from '../../../src/ranking/index.js';
import { CATALOGUE_RANKING_DEFAULT, SHIPPED_RANKING_DEFAULT, startingRankingDefault } from '../../../src/ranking/ranking-default.js';
import { HOUR, NOW, post } from './fixtures.js';

const DAY = 24 * HOUR;

describe('the pace', () => {
  it('places an age at engagement in the bucket of the nearest rung (geometric midpoints), past 30 days in all-time', () => {
    // Rungs 2, 6, 24, 72, 240 h: midpoints √12 ≈ 3.46, 12, √1728 ≈ 41.6, √17280 ≈ 131.5, then 720.
    expect(paceBucket(0)).toBe(0);
    expect(paceBucket(3.4 * HOUR)).toBe(0);
    expect(paceBucket(3.5 * HOUR)).toBe(1);
    expect(paceBucket(11.9 * HOUR)).toBe(1);
    expect(paceBucket(12 * HOUR)).toBe(2);
    expect(paceBucket(41 * HOUR)).toBe(2);
    expect(paceBucket(42 * HOUR)).toBe(3);
    expect(paceBucket(131 * HOUR)).toBe(3);
    expect(paceBucket(132 * HOUR)).toBe(4);
    expect(paceBucket(719 * HOUR)).toBe(4);
    expect(paceBucket(720 * HOUR)).toBe(PACE_HALF_LIVES_HOURS.length);
    expect(rungOfHalfLife(6)).toBe(1);
    expect(rungOfHalfLife(null)).toBe(ALL_TIME);
    expect(rungOfHalfLife(10_000)).toBe(ALL_TIME);
  });

  it('says all-time until it has PACE_MIN_SAMPLES dated engagements, then the median bucket', () => {
    const pace = new EngagementPace();
    for (let i = 0; i < PACE_MIN_SAMPLES - 1; i++) pace.add(HOUR);
    expect(pace.rung()).toBe(ALL_TIME);
    pace.add(HOUR);
    expect(pace.rung()).toBe(0);
    expect(pace.halfLifeHours()).toBe(2);
    // 100 at 1 h, then 101 at 100 h: the median is in the 72 h bucket.
    for (let i = 0; i < PACE_MIN_SAMPLES + 1; i++) pace.add(100 * HOUR);
    expect(pace.halfLifeHours()).toBe(72);
  });

  it('a feed (hours) and a catalogue (months) apart, and the window slides to the newest', () => {
    const random = createRandom(7);
    const pace = new EngagementPace();
    // A feed: ages exponential with a mean of 3 hours.
    for (let i = 0; i < PACE_WINDOW; i++) pace.add(-Math.log(1 - random()) * 3 * HOUR);
    expect(pace.halfLifeHours()).toBe(2);
    // The community turns into a catalogue: a whole window of ages over a year.
    for (let i = 0; i < PACE_WINDOW; i++) pace.add(random() * 365 * DAY);
    expect(pace.rung()).toBe(ALL_TIME);
    expect(pace.samples).toBe(PACE_WINDOW);
  });
});

/** The direct formula: log1p(Σ weight · 2^(−(now − at)/h)) over a post's dated engagements. */
function direct(events: readonly { at: number; weight: number }[], nowMs: number, hours: number): number {
  let sum = 0;
  for (const e of events) sum += e.weight * Math.pow(2, -(nowMs - e.at) / (hours * HOUR));
  return Math.log1p(Math.max(0, sum));
}

describe('the decayed sums', () => {
  it('equal the direct formula, engagements dated live, redated after a reload, and a year apart (the anchor moves)', () => {
    const random = createRandom(2026);
    const ids = Array.from({ length: 40 }, (_, i) => `p${i}`);
    const created = new Map(ids.map((id, i) => [id, NOW - 400 * DAY + i * 9 * DAY]));
    const actions: InteractionAction[] = ['favorite', 'reblog', 'bookmark'];
    // Events over the year after each post's creation, in time order.
    const events = Array.from({ length: 3000 }, () => {
      const id = ids[Math.floor(random() * ids.length)]!;
      const at = created.get(id)! + random() * 30 * DAY;
      return { id, at, action: actions[Math.floor(random() * 3)]! };
    }).sort((a, b) => a.at - b.at);
    const weightOf = (action: InteractionAction) => (action === 'favorite' ? 1 : action === 'reblog' ? 2 : 0);
    const nowMs = events[events.length - 1]!.at + HOUR;
    const byPost = new Map<string, { at: number; weight: number }[]>(ids.map((id) => [id, []]));
    const positivesByPost = new Map<string, { at: number; weight: number }[]>(ids.map((id) => [id, []]));
    for (const e of events) {
      byPost.get(e.id)!.push({ at: e.at, weight: weightOf(e.action) });
      positivesByPost.get(e.id)!.push({ at: e.at, weight: 1 });
    }

    // Live: each engagement counted at its own time (updateCounts with an instant). Reads kept from
    // before and during the updates are patched as they come (read at the same instant: served again).
    const live = new CandidateIndex(ids.map((id) => post(id, { createdAtMs: created.get(id)! })));
    const counts = new Map(ids.map((id) => [id, { favourites: 0, reblogs: 0, replies: 0, bookmarks: 0 }]));
    for (const [k, e] of events.entries()) {
      if (k % 500 === 0) for (let r = 0; r < PACE_HALF_LIVES_HOURS.length; r++) live.decayedEngagement(r, nowMs, k % 1000 === 0);
      const c = counts.get(e.id)!;
      if (e.action === 'favorite') c.favourites += 1;
      else if (e.action === 'reblog') c.reblogs += 1;
      else c.bookmarks += 1;
      live.updateCounts(e.id, { ...c }, e.at);
    }
    // A reload: the same counts, undated, then every engagement redated (in another order).
    const reloaded = new CandidateIndex(ids.map((id) => post(id, { createdAtMs: created.get(id)!, ...counts.get(id)! })));
    for (const e of [...events].reverse()) reloaded.redate(e.id, e.action, e.at);

    for (const [r, hours] of PACE_HALF_LIVES_HOURS.entries()) {
      for (const index of [live, reloaded]) {
        const engagement = index.decayedEngagement(r, nowMs, false);
        const positives = index.decayedEngagement(r, nowMs, true);
        let max = 0;
        for (const id of ids) {
          const slot = index.slotOf(id)!;
          const want = direct(byPost.get(id)!, nowMs, hours);
          expect(engagement.values[slot.index]).toBeCloseTo(want, 9);
          expect(positives.values[slot.index]).toBeCloseTo(direct(positivesByPost.get(id)!, nowMs, hours), 9);
          max = Math.max(max, want);
        }
        expect(engagement.max).toBeCloseTo(max, 9);
      }
    }
    // Both counted the same dated engagements for the pace: ages up to 30 days, so not a catalogue's.
    expect(live.pace.samples).toBe(3000);
    expect(live.pace.rung()).toBe(reloaded.pace.rung());
    expect(live.pace.rung()).toBe(4);
  });

  it('a kept read follows posts coming and going, and a fallen maximum', () => {
    const index = new CandidateIndex([post('a', { createdAtMs: NOW - 3 * HOUR }), post('b', { createdAtMs: NOW - 2 * HOUR })]);
    // At a 2-hour half-life an hour ago weighs 2^−½.
    index.updateCounts('a', { favourites: 4, reblogs: 0, replies: 0 }, NOW - HOUR);
    index.updateCounts('b', { favourites: 1, reblogs: 0, replies: 0 }, NOW - HOUR);
    const first = index.decayedEngagement(0, NOW, false);
    expect(first.max).toBeCloseTo(Math.log1p(4 / Math.SQRT2), 12);
    // The maximum's post goes: the next read is b's.
    index.remove('a');
    expect(index.decayedEngagement(0, NOW, false).max).toBeCloseTo(Math.log1p(1 / Math.SQRT2), 12);
    // A new post with counts of its own (undated: at its creation, an hour ago) is read at once.
    index.upsert(post('c', { createdAtMs: NOW - HOUR, favourites: 8 }));
    const read = index.decayedEngagement(0, NOW, false);
    expect(read.values[index.slotOf('c')!.index]).toBeCloseTo(Math.log1p(8 / Math.SQRT2), 12);
    expect(read.max).toBeCloseTo(Math.log1p(8 / Math.SQRT2), 12);
    // An undo lowers the maximum: read again from the sums.
    index.updateCounts('c', { favourites: 0, reblogs: 0, replies: 0 }, NOW - HOUR);
    expect(index.decayedEngagement(0, NOW, false).max).toBeCloseTo(Math.log1p(1 / Math.SQRT2), 12);
  });

  it('an undated change (a drift corrected) is dated at the newest instant seen; an undo takes back what was counted then', () => {
    const index = new CandidateIndex([post('a', { createdAtMs: NOW - 10 * HOUR }), post('b', { createdAtMs: NOW - 5 * HOUR })]);
    index.updateCounts('a', { favourites: 1, reblogs: 0, replies: 0 }, NOW - 9 * HOUR);
    index.updateCounts('a', { favourites: 2, reblogs: 0, replies: 0 }, NOW - 2 * HOUR);
    index.updateCounts('a', { favourites: 1, reblogs: 0, replies: 0 }, NOW - 2 * HOUR);
    index.updateCounts('b', { favourites: 3, reblogs: 0, replies: 0 });
    const read = index.decayedEngagement(0, NOW, false);
    expect(read.values[index.slotOf('a')!.index]).toBeCloseTo(Math.log1p(Math.pow(2, -9 / 2)), 12);
    // Dated at the newest instant seen: 2 hours ago (the last dated engagement).
    expect(read.values[index.slotOf('b')!.index]).toBeCloseTo(Math.log1p(3 * Math.pow(2, -1)), 12);
  });
});

describe('ranking at the pace', () => {
  /** A post with 30 favourites in its first hour, 10 hours ago, and one from 9 hours ago with 6 in the last hour. */
  function feed(): CandidateIndex {
    const index = new CandidateIndex([post('old-hit', { createdAtMs: NOW - 10 * HOUR }), post('rising', { createdAtMs: NOW - 9 * HOUR })]);
    for (let k = 1; k <= 30; k++) index.updateCounts('old-hit', { favourites: k, reblogs: 0, replies: 0 }, NOW - 10 * HOUR + k * 60_000);
    for (let k = 1; k <= 6; k++) index.updateCounts('rising', { favourites: k, reblogs: 0, replies: 0 }, NOW - HOUR + k * 60_000);
    // Enough dated engagements for a pace: a feed's, engaged within the first hours.
    for (let k = 0; k < PACE_MIN_SAMPLES; k++) index.pace.add(HOUR);
    return index;
  }
  const newcomer = (index: CandidateIndex, engagementHalfLife: 'pace' | 'all-time') =>
    rankCandidates(index, emptyProfile('newcomer'), DEFAULT_ALGORITHM_CONFIG, {
      ...SHIPPED_RANKING_OPTIONS,
      engagementHalfLife,
      limit: 2,
      nowMs: NOW,
    });

  it('puts what the community engages with now first on a feed, and the all-time favourite with all-time counts', () => {
    const index = feed();
    expect(index.engagementRung('pace')).toBe(0);
    const paced = newcomer(index, 'pace');
    expect(paced.map((i) => i.post.id)).toEqual(['rising', 'old-hit']);
    // The feature shown is the decayed one: the rising post is the pool's maximum.
    expect(paced[0]!.features.content_engagement).toBe(1);
    expect(newcomer(index, 'all-time').map((i) => i.post.id)).toEqual(['old-hit', 'rising']);
  });

  it('the engine default (experiments) counts all-time', () => {
    const index = feed();
    const engine = rankCandidates(index, emptyProfile('newcomer'), DEFAULT_ALGORITHM_CONFIG, { limit: 2, nowMs: NOW });
    const allTime = rankCandidates(index, emptyProfile('newcomer'), DEFAULT_ALGORITHM_CONFIG, {
      limit: 2,
      nowMs: NOW,
      engagementHalfLife: 'all-time',
    });
    expect(engine).toEqual(allTime);
  });
});

describe('the starting point the pace names', () => {
  it('is a catalogue’s (where catalogue fits go) only when enough engagements came months after their posts', () => {
    const pace = new EngagementPace();
    expect(startingRankingDefault(pace)).toBe(SHIPPED_RANKING_DEFAULT);
    for (let i = 0; i < PACE_MIN_SAMPLES - 1; i++) pace.add(400 * DAY);
    // Too few to tell: not a catalogue.
    expect(pace.catalogue()).toBe(false);
    expect(startingRankingDefault(pace)).toBe(SHIPPED_RANKING_DEFAULT);
    pace.add(400 * DAY);
    expect(pace.catalogue()).toBe(true);
    expect(startingRankingDefault(pace)).toEqual({
      ...SHIPPED_RANKING_DEFAULT,
      collaborative: 1,
      content_engagement: 0.1,
      per_author_cap: 20,
      cold_start_recency: 0,
    });
    expect(startingRankingDefault(pace)).toBe(CATALOGUE_RANKING_DEFAULT);
    // A feed's pace (hours) keeps the shipped point.
    for (let i = 0; i < PACE_WINDOW; i++) pace.add(3 * HOUR);
    expect(pace.catalogue()).toBe(false);
    expect(startingRankingDefault(pace)).toBe(SHIPPED_RANKING_DEFAULT);
  });

  // Median ages at engagement of the synthetic feeds whose attention fades in 1, 4 and 24 hours
  // (1.1, 2.9–3.7, 23.5–25 h), the half-lives their fits reach (2, 8, 72), and each bucket's
  // edges (twice the median, the nearest rung of 2, 4, 8, 24, 72, 168 on a log scale).
  it.each([
    [1.1, 2],
    [1.5, 4],
    [2.3, 4],
    [2.9, 8],
    [3.7, 8],
    [6.5, 8],
    [7.5, 24],
    [16, 24],
    [23.5, 72],
    [50, 72],
    [70, 168],
    [400, 168],
  ])('gives a feed engaged with a median %s h after its posts the recency half-life %s h', (medianHours, halfLife) => {
    const pace = new EngagementPace();
    for (let i = 0; i < PACE_WINDOW; i++) pace.add(medianHours * HOUR);
    expect(Math.abs(Math.log(pace.medianAgeHours()! / medianHours))).toBeLessThan(Math.log(1.1));
    const point = startingRankingDefault(pace);
    expect(point).toEqual({ ...SHIPPED_RANKING_DEFAULT, recency_half_life_hours: halfLife });
    // The same object for the same reading: the ranking state compares them by identity per request.
    expect(startingRankingDefault(pace)).toBe(point);
    expect(point === SHIPPED_RANKING_DEFAULT).toBe(halfLife === SHIPPED_RANKING_DEFAULT.recency_half_life_hours);
  });
});

describe('the median age at engagement', () => {
  it('reads steady while the window’s median hovers between two neighbouring buckets, and moves when it moves on', () => {
    // Fine buckets of a quarter doubling from 1/16 h: 2.5 h and 3.2 h fall in neighbouring ones (2^(21/4)/16 ≈ 2.38, 2^(22/4)/16 ≈ 2.83).
    const pace = new EngagementPace();
    for (let i = 0; i < PACE_WINDOW; i++) pace.add(2.5 * HOUR);
    const first = pace.medianAgeHours()!;
    expect(Math.abs(Math.log(first / 2.5))).toBeLessThan(Math.log(1.1));
    // The window turns over to 3.2 h, one bucket on: a feed at the edge between starting points reads the same.
    for (let i = 0; i < PACE_WINDOW; i++) pace.add(3.2 * HOUR);
    expect(pace.medianAgeHours()).toBe(first);
    for (let i = 0; i < PACE_WINDOW; i++) pace.add(2.5 * HOUR);
    expect(pace.medianAgeHours()).toBe(first);
    // Two buckets on (4 h): it moves.
    for (let i = 0; i < PACE_WINDOW; i++) pace.add(4 * HOUR);
    expect(Math.abs(Math.log(pace.medianAgeHours()! / 4))).toBeLessThan(Math.log(1.1));
  });

  it('is null until PACE_MIN_SAMPLES dated engagements and for a catalogue, else within a tenth of the window’s median', () => {
    const random = createRandom(11);
    const pace = new EngagementPace();
    const ages: number[] = [];
    for (let i = 0; i < PACE_MIN_SAMPLES - 1; i++) {
      const age = -Math.log(1 - random()) * 5 * HOUR;
      ages.push(age);
      pace.add(age);
    }
    expect(pace.medianAgeHours()).toBeNull();
    // Exponential ages (mean 5 h), then the window slides over longer ones (mean 40 h).
    for (const [count, mean] of [
      [PACE_WINDOW, 5],
      [PACE_WINDOW + 17, 40],
    ] as const) {
      for (let i = 0; i < count; i++) {
        const age = -Math.log(1 - random()) * mean * HOUR;
        ages.push(age);
        pace.add(age);
      }
      const window = ages.slice(-PACE_WINDOW).sort((a, b) => a - b);
      const median = window[PACE_WINDOW / 2]! / HOUR;
      const measured = pace.medianAgeHours()!;
      expect(Math.abs(Math.log(measured / median))).toBeLessThan(Math.log(1.1));
    }
    // Months after the posts: a catalogue, no feed median.
    for (let i = 0; i < PACE_WINDOW; i++) pace.add(200 * DAY);
    expect(pace.catalogue()).toBe(true);
    expect(pace.medianAgeHours()).toBeNull();
    pace.clear();
    expect(pace.medianAgeHours()).toBeNull();
  });
});

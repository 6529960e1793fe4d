/** The behaviour model of `recsvc demo traffic`: seeded, with the planted click probabilities. */
import { describe, expect, it } from 'vitest';
import {
  clickProbability,
  FAVOURITE_SHARE,
  FEEDBACK_SHARE,
  POSITIVE_FEEDBACK_SHARE,
  simulateVisit,
  userRandom,
  userSeed,
} from '../../../src/experiments/simulated-visit.js';

const POSTS = Array.from({ length: 20 }, (_, i) => `p${i + 1}`);

/** Clicks, favourites and feedback of `users` visits at one click probability. */
function community(seed: number, users: number, probability: number) {
  let shown = 0;
  let clicks = 0;
  let favourites = 0;
  let feedback = 0;
  let positive = 0;
  for (let user = 1; user <= users; user++) {
    const visit = simulateVisit(userRandom(seed, user), POSTS, probability);
    shown += POSTS.length;
    clicks += visit.clicked.length;
    favourites += visit.favourited.length;
    if (visit.feedback !== undefined) feedback += 1;
    if (visit.feedback?.value === 'more') positive += 1;
  }
  return { ctr: clicks / shown, favouriteShare: favourites / clicks, feedbackShare: feedback / users, positiveShare: positive / feedback };
}

describe('simulated visits', () => {
  it('plant ctr in the control and ctr x (1 + lift) in a treatment', () => {
    expect(clickProbability({ ctr: 0.1, lift: 0.25 }, false)).toBe(0.1);
    expect(clickProbability({ ctr: 0.1, lift: 0.25 }, true)).toBeCloseTo(0.125, 12);
    expect(clickProbability({ ctr: 0.1, lift: -0.5 }, true)).toBeCloseTo(0.05, 12);
  });

  it('click each shown post with the given probability, favourite and give feedback at their shares', () => {
    // 20,000 users x 20 posts: the standard error of the click rate at 0.1 is 0.0005.
    const control = community(3, 20_000, 0.1);
    const treatment = community(3, 20_000, 0.13);
    expect(Math.abs(control.ctr - 0.1)).toBeLessThan(0.002);
    expect(Math.abs(treatment.ctr - 0.13)).toBeLessThan(0.002);
    expect(Math.abs(control.favouriteShare - FAVOURITE_SHARE)).toBeLessThan(0.02);
    expect(Math.abs(control.feedbackShare - FEEDBACK_SHARE)).toBeLessThan(0.02);
    expect(Math.abs(control.positiveShare - POSITIVE_FEEDBACK_SHARE)).toBeLessThan(0.02);
  });

  it('are decided by the seed and the user alone: the same again, another seed or user differs', () => {
    const again = (seed: number, user: number) => simulateVisit(userRandom(seed, user), POSTS, 0.3);
    expect(again(9, 42)).toEqual(again(9, 42));
    expect(again(9, 42)).not.toEqual(again(10, 42));
    expect(again(9, 42)).not.toEqual(again(9, 43));
    expect(new Set(Array.from({ length: 1000 }, (_, i) => userSeed(1, i))).size).toBe(1000);
  });

  it('click only shown posts; feedback "more" on a clicked post, "less" on one passed over', () => {
    for (let user = 1; user <= 500; user++) {
      const visit = simulateVisit(userRandom(5, user), POSTS, 0.2);
      expect(visit.clicked.every((id) => POSTS.includes(id))).toBe(true);
      expect(visit.favourited.every((id) => visit.clicked.includes(id))).toBe(true);
      if (visit.feedback?.value === 'more' && visit.clicked.length > 0) expect(visit.clicked).toContain(visit.feedback.postId);
      if (visit.feedback?.value === 'less' && visit.clicked.length < POSTS.length)
        expect(visit.clicked).not.toContain(visit.feedback.postId);
      expect(visit.sessionSeconds).toBeGreaterThanOrEqual(15 + 20 * visit.clicked.length);
    }
    expect(simulateVisit(userRandom(5, 1), [], 0.5)).toMatchObject({ clicked: [], favourited: [], feedback: undefined });
  });
});

/**
 * What one simulated user does with the recommendations they were shown (`recsvc demo
 * traffic`): which posts they click, favourite, and what feedback they give. Pure: the
 * caller hands in the user's seeded random source, so a seed decides every choice and the
 * order in which users are simulated does not.
 *
 * The planted effect: each shown post is clicked with probability `ctr` in the control
 * (and for users outside the experiment) and `ctr x (1 + lift)` in every other variant,
 * independently of the post. The true click-through rates are therefore exactly those,
 * whatever the variants rank, and the true relative lift of click_through_rate is `lift`.
 * Favourites are a fixed share of clicks (so interaction_rate carries the same lift);
 * feedback does not depend on the variant (user_satisfaction has no true effect).
 */
import { createRandom } from '../random.js';

/** How the simulated community behaves. */
export interface VisitModel {
  /** Click probability per shown post in the control, in (0, 1). */
  ctr: number;
  /** True relative lift of the click probability in non-control variants, > -1. */
  lift: number;
}

/** Recommendations a simulated user asks for per visit: what a timeline client asks for (spec: about 20). */
export const POSTS_PER_VISIT = 20;
/** Share of clicked posts a user also favourites. */
export const FAVOURITE_SHARE = 0.3;
/** Share of users who send one "more/less like this" feedback. */
export const FEEDBACK_SHARE = 0.4;
/** Share of feedback that is positive ("more"): user_satisfaction ≈ 0.8, above the 0.6 gate. */
export const POSITIVE_FEEDBACK_SHARE = 0.8;

/** What a user did in one visit. */
export interface Visit {
  /** Probability with which each shown post was clicked. */
  clickProbability: number;
  clicked: string[];
  favourited: string[];
  feedback: { postId: string; value: 'more' | 'less' } | undefined;
  /** Length of the session, in seconds: a short look, longer with each click. */
  sessionSeconds: number;
}

/** The click probability of a user: `ctr` in the control or outside the experiment, `ctr x (1 + lift)` in a treatment. */
export function clickProbability(model: VisitModel, inTreatment: boolean): number {
  return inTreatment ? model.ctr * (1 + model.lift) : model.ctr;
}

/** Seed of one user's random source: the run's seed mixed with the user's number (FNV-1a style). */
export function userSeed(seed: number, userNumber: number): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (const value of [userNumber >>> 0, Math.floor(userNumber / 2 ** 32)]) {
    for (let shift = 0; shift < 32; shift += 8) {
      h ^= (value >>> shift) & 0xff;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  }
  return h >>> 0;
}

/**
 * One visit: every shown post is clicked independently with the user's click probability;
 * a clicked post is favourited with FAVOURITE_SHARE; a FEEDBACK_SHARE of users send one
 * feedback, "more" on a clicked post (or any shown one) or "less" on one they passed over.
 * Random draws are made in a fixed order per shown position, so a seed and the posts decide all.
 */
export function simulateVisit(random: () => number, shown: readonly string[], probability: number): Visit {
  const clicked: string[] = [];
  const favourited: string[] = [];
  for (const postId of shown) {
    const click = random() < probability;
    const favourite = random() < FAVOURITE_SHARE;
    if (!click) continue;
    clicked.push(postId);
    if (favourite) favourited.push(postId);
  }
  const sendsFeedback = random() < FEEDBACK_SHARE;
  const positive = random() < POSITIVE_FEEDBACK_SHARE;
  const pick = random();
  let feedback: Visit['feedback'];
  if (sendsFeedback && shown.length > 0) {
    const passedOver = shown.filter((postId) => !clicked.includes(postId));
    const pool = positive ? (clicked.length > 0 ? clicked : shown) : passedOver.length > 0 ? passedOver : shown;
    feedback = { postId: pool[Math.floor(pick * pool.length)]!, value: positive ? 'more' : 'less' };
  }
  const sessionSeconds = Math.round(15 + 20 * clicked.length + 30 * random());
  return { clickProbability: probability, clicked, favourited, feedback, sessionSeconds };
}

/** A user's own random source for a run. */
export function userRandom(seed: number, userNumber: number): () => number {
  return createRandom(userSeed(seed, userNumber));
}

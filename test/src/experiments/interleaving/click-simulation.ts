/**
 * A seeded click simulation for interleaving tests: users of different activity look at a
 * list of POSITIONS items and click each with probability activity × position bias ×
 * the item's ranker quality (a cascade-free, position-biased model). Two rankers either
 * give the same list (A/A) or disjoint lists of the same size (one may be `lift` better).
 */
import { mulberry32, seededCoin, teamDraft, type Coin, type Team } from '../../../../src/experiments/interleaving/team-draft.js';
import type { UserCredit } from '../../../../src/experiments/interleaving/analysis.js';

export const POSITIONS = 10;
/** Examination probability of a position (0-based): 1 / (rank). */
export const positionBias = (position: number): number => 1 / (position + 1);

export type Random = () => number;

/**
 * Spread of users' activity (log scale). The figure interleaving is compared on depends on
 * it: at 0.5 interleaving needs ~0.9x the users of an A/B test, at 1 ~0.45x, at 1.5 ~0.22x,
 * at 2 ~0.11x (engagement in social feeds is heavy-tailed; 1.5 is the model used here).
 */
export const ACTIVITY_SIGMA = 1.5;

/** A user's click propensity at the top position: log-normal, mean 0.3 (heavy and light users). */
export function activityOf(random: Random): number {
  // Box–Muller from two uniforms.
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.exp(Math.log(0.3) - (ACTIVITY_SIGMA * ACTIVITY_SIGMA) / 2 + ACTIVITY_SIGMA * z);
}

const clicked = (random: Random, activity: number, position: number, quality: number): boolean =>
  random() < Math.min(1, activity * positionBias(position) * quality);

export interface Scenario {
  /** true: both rankers give the same list; false: disjoint lists. */
  sameList: boolean;
  /** Click multiplier of team B's items (1: no difference). */
  liftB: number;
}

/** One interleaved user: team draft (with `coin`) of the two rankers' lists, clicks credited per team. */
export function interleavedUser(random: Random, coin: Coin, scenario: Scenario): UserCredit {
  const a = Array.from({ length: POSITIONS }, (_, i) => `a${i}`);
  const b = scenario.sameList ? a : Array.from({ length: POSITIONS }, (_, i) => `b${i}`);
  const activity = activityOf(random);
  const credit: Record<Team, number> = { A: 0, B: 0 };
  teamDraft(a, b, (id) => id, coin, POSITIONS).forEach(({ item, team }, position) => {
    // The lift belongs to B's items (only distinguishable when the lists differ).
    const quality = !scenario.sameList && item.startsWith('b') ? scenario.liftB : 1;
    if (clicked(random, activity, position, quality)) credit[team]++;
  });
  return { a: credit.A, b: credit.B };
}

/** One A/B user of one arm: clicks on their own ranker's list of POSITIONS items. */
export function abUserClicks(random: Random, quality: number): number {
  const activity = activityOf(random);
  let clicks = 0;
  for (let position = 0; position < POSITIONS; position++) if (clicked(random, activity, position, quality)) clicks++;
  return clicks;
}

/** `users` interleaved users of one simulated experiment; `biased` always lets A pick first. */
export function interleavedExperiment(seed: number, users: number, scenario: Scenario, biased = false): UserCredit[] {
  const random = mulberry32(seed);
  return Array.from({ length: users }, (_, u) => interleavedUser(random, biased ? () => true : seededCoin(`sim:${seed}:${u}`), scenario));
}

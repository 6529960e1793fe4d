/**
 * Knobs of the reliability suite: short runs by default (CI), long ones under
 * RECSVC_RELIABILITY_LONG=1; the fuzz seed is fixed, and can be replayed with
 * RECSVC_RELIABILITY_SEED.
 */

import { createRandom } from '../../../src/random.js';

/** True when the long variants were asked for (RECSVC_RELIABILITY_LONG=1). */
export const LONG = process.env.RECSVC_RELIABILITY_LONG === '1';

/** `short` by default, `long` under RECSVC_RELIABILITY_LONG=1. */
export function byMode<T>(short: T, long: T): T {
  return LONG ? long : short;
}

/** The seed of every generated input and random moment; printed by each test that uses it. */
export const SEED = parseSeed(process.env.RECSVC_RELIABILITY_SEED);

function parseSeed(text: string | undefined): number {
  if (text === undefined || text === '') return 20_250_901;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`RECSVC_RELIABILITY_SEED must be an integer, got "${text}"`);
  return seed;
}

/** A small deterministic generator (mulberry32, shared with the demo data) for random moments and choices outside fast-check. */
export const seededRandom = createRandom;

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Deterministic pseudo-random numbers for demo data and simulations (never for secrets). */

/** Mulberry32: a small, fast 32-bit PRNG returning floats in [0, 1) from a seed. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A uniform integer in [0, n) drawn from `random`. */
export function randomInt(random: () => number, n: number): number {
  return Math.floor(random() * n);
}

/** Test helpers: feed strings to the streaming parsers as the CLI's line reader would. */

/** Yields each string as one line, asynchronously. */
export async function* linesOf(lines: Iterable<string>): AsyncGenerator<string> {
  for (const line of lines) yield line;
}

/** Splits a text into lines like readline does (no trailing newline characters). */
export function textLines(text: string): AsyncGenerator<string> {
  return linesOf(text.split('\n'));
}

/** Mulberry32: a seeded PRNG returning floats in [0, 1), so simulations are reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

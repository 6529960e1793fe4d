/**
 * Team-draft interleaving (Radlinski, Kurup & Joachims 2008, "How does clickthrough data
 * reflect retrieval quality?"): two rankings are merged into one list like two captains
 * picking teams. Each round a fair coin decides which team picks first; a team's pick is
 * its ranking's highest item not yet in the list, and each item remembers the team that
 * picked it, so a click on it is credited to that ranking. The team with fewer picks
 * picks next, so team sizes never differ by more than one at any point of the list.
 */

/** Team `A` picks from the first ranking, `B` from the second. */
export type Team = 'A' | 'B';

/** One merged item and the team (ranking) that contributed it. */
export interface TeamPick<T> {
  readonly item: T;
  readonly team: Team;
}

/** A fair coin: true means team A picks first this round. */
export type Coin = () => boolean;

/**
 * Merges two rankings by team draft, at most `limit` items (default: until either ranking
 * has nothing left to give). `keyOf` identifies an item across both rankings (a post id).
 */
export function teamDraft<T>(
  a: readonly T[],
  b: readonly T[],
  keyOf: (item: T) => string,
  coin: Coin,
  limit = Number.POSITIVE_INFINITY,
): TeamPick<T>[] {
  const used = new Set<string>();
  const out: TeamPick<T>[] = [];
  const cursor = { A: 0, B: 0 };
  const sizes = { A: 0, B: 0 };
  const lists = { A: a, B: b };
  const nextUnused = (team: Team): T | undefined => {
    const list = lists[team];
    while (cursor[team] < list.length && used.has(keyOf(list[cursor[team]] as T))) cursor[team]++;
    return list[cursor[team]];
  };
  while (out.length < limit) {
    if (nextUnused('A') === undefined || nextUnused('B') === undefined) break;
    // Equal sizes start a round: the coin decides who picks first (the other picks second).
    const team: Team = sizes.A === sizes.B ? (coin() ? 'A' : 'B') : sizes.A < sizes.B ? 'A' : 'B';
    const item = nextUnused(team) as T;
    used.add(keyOf(item));
    sizes[team]++;
    out.push({ item, team });
  }
  return out;
}

/** 32-bit FNV-1a of a string (the seed of a coin). */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** A deterministic pseudo-random source in [0, 1) from a 32-bit seed (mulberry32). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fair coin seeded by a string: the same seed flips the same sequence. */
export function seededCoin(seed: string): Coin {
  const random = mulberry32(fnv1a32(seed));
  return () => random() < 0.5;
}

const DAY_MS = 86_400_000;

/**
 * The coin seed of one user's lists in an interleaving experiment: per user and UTC day,
 * so a list is reproducible (and a user's pages of a day agree) while days differ.
 */
export function interleavingSeed(experimentId: number, userId: string, nowMs: number): string {
  return `interleave:${experimentId}:${userId}:${Math.floor(nowMs / DAY_MS)}`;
}

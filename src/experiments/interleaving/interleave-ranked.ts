/**
 * Interleaving applied to ranked lists: what the recommendation service calls when the
 * ranking choice names two rankers. Each merged item is the contributing ranker's own
 * item (its score and reason) plus the team that picked it.
 */
import type { RankedItem } from '../../ranking/ranking.types.js';
import { seededCoin, teamDraft, type Team } from './team-draft.js';

/** Two ranker configurations (team A, team B) and the seed of the coin. */
export interface InterleaveSpec<C> {
  readonly configs: readonly [C, C];
  readonly seed: string;
}

/** A ranked item that remembers which ranker contributed it. */
export type TeamRankedItem = RankedItem & { readonly team: Team };

/** Ranks with both configs (`rank`) and merges the lists by team draft, at most `limit` items. */
export function interleaveRanked<C>(spec: InterleaveSpec<C>, rank: (config: C) => RankedItem[], limit: number): TeamRankedItem[] {
  const a = rank(spec.configs[0]);
  const b = rank(spec.configs[1]);
  return teamDraft(a, b, (item) => item.post.id, seededCoin(spec.seed), limit).map(({ item, team }) => ({ ...item, team }));
}

/** The team of an item merged by `interleaveRanked`; undefined for an item of a plain ranking. */
export function teamOf(item: RankedItem): Team | undefined {
  const team = (item as Partial<TeamRankedItem>).team;
  return team === 'A' || team === 'B' ? team : undefined;
}

/**
 * The analysis of an interleaving experiment from the database: each user who was served an
 * interleaved list, their interleaved impressions and credited clicks per team
 * (interleaving.repository.ts), through the same pure analysis the CLI prints.
 */
import type { Kysely } from 'kysely';
import type { InterleavingAnalysis } from '../../../src/experiments/interleaving/interleaving-analysis.schema.js';
import {
  interleavingResult,
  interleavingTeams,
  type InterleavingDesign,
  type UserTeamCounts,
} from '../../../src/experiments/interleaving/interleaving-result.js';
import type { Database } from '../../db/database.js';
import { creditedClickCounts, teamImpressionCounts, type TeamCountRow } from './interleaving.repository.js';

interface MutableCounts {
  impressionsA: number;
  impressionsB: number;
  a: number;
  b: number;
}

/** Preference share, interval, sign test and ties of an interleaving experiment. */
export async function analyzeInterleavingExperiment(db: Kysely<Database>, design: InterleavingDesign): Promise<InterleavingAnalysis> {
  const teams = interleavingTeams(design);
  const users = new Map<string, MutableCounts>();
  const add = (rows: readonly TeamCountRow[], field: (team: 'A' | 'B') => keyof MutableCounts): void => {
    for (const row of rows) {
      const team = row.team === teams.a ? 'A' : row.team === teams.b ? 'B' : undefined;
      if (team === undefined) continue;
      let counts = users.get(row.user_id);
      if (!counts) users.set(row.user_id, (counts = { impressionsA: 0, impressionsB: 0, a: 0, b: 0 }));
      counts[field(team)] += Number(row.value);
    }
  };
  add(await teamImpressionCounts(db, design.id), (team) => (team === 'A' ? 'impressionsA' : 'impressionsB'));
  add(await creditedClickCounts(db, design.id), (team) => (team === 'A' ? 'a' : 'b'));
  const perUser: UserTeamCounts[] = [...users.values()];
  return interleavingResult(design, perUser);
}

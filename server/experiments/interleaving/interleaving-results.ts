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
import type { AnalysisMethod } from '../../../src/experiments/stats/sequential.js';
import type { Database } from '../../platform/db/database.js';
import { creditedClickCounts, teamImpressionCounts, type TeamCountRow } from './interleaving.repository.js';

interface MutableCounts {
  impressionsA: number;
  impressionsB: number;
  a: number;
  b: number;
}

/** Per user (in user-id order): interleaved impressions and credited clicks of each team. */
export async function interleavingUserCounts(db: Kysely<Database>, design: InterleavingDesign): Promise<Map<string, UserTeamCounts>> {
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
  return new Map([...users].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}

/** Preference share, interval, p-value and ties of an interleaving experiment (`method` overrides the recorded one). */
export async function analyzeInterleavingExperiment(
  db: Kysely<Database>,
  design: InterleavingDesign,
  method?: AnalysisMethod,
): Promise<InterleavingAnalysis> {
  return interleavingResult(design, [...(await interleavingUserCounts(db, design)).values()], method);
}

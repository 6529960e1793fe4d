/**
 * The interleaving analysis as the API and the CLI report it: team A is the ranker under
 * test (the non-control variant), team B the control, so the preference share is the share
 * of users with a preference who preferred the ranker under test.
 */
import { ValidationError } from '../../errors.js';
import { isAnalysisMethod, UNRECORDED_ANALYSIS_METHOD, type AnalysisMethod } from '../stats/sequential.js';
import { analyzeInterleaving, type UserCredit } from './analysis.js';
import type { InterleavingAnalysis } from './interleaving-analysis.schema.js';

/** What the analysis needs of the experiment. */
export interface InterleavingDesign {
  id: number;
  confidence_level: number;
  minimum_sample_size: number;
  variants: readonly { name: string; is_control: boolean }[];
  /** The method recorded with the experiment; absent: UNRECORDED_ANALYSIS_METHOD (fixed). */
  analysis_method?: string;
}

/** The method of this read: the override, else the design's recorded one, else fixed (as for A/B: analysis.ts). */
export function interleavingMethodOf(design: InterleavingDesign, override?: AnalysisMethod): AnalysisMethod {
  if (override !== undefined) return override;
  const recorded = design.analysis_method;
  if (recorded === undefined) return UNRECORDED_ANALYSIS_METHOD;
  if (!isAnalysisMethod(recorded))
    throw new ValidationError(`analysis_method must be "fixed" or "sequential" (got ${JSON.stringify(recorded)})`, 'analysis_method');
  return recorded;
}

/** The variants playing team A (under test) and team B (control). */
export function interleavingTeams(design: Pick<InterleavingDesign, 'variants'> & { id?: unknown }): { a: string; b: string } {
  const control = design.variants.find((v) => v.is_control) ?? design.variants[0];
  const treatment = design.variants.find((v) => v !== control);
  if (!control || !treatment) throw new RangeError(`experiment ${String(design.id)} has no two variants to interleave`);
  return { a: treatment.name, b: control.name };
}

/** Per user: interleaved impressions and credited clicks of each team (A: under test, B: control). */
export interface UserTeamCounts extends UserCredit {
  readonly impressionsA: number;
  readonly impressionsB: number;
}

/**
 * The report: preference share of the ranker under test, ties, and with the fixed method its
 * Wilson interval and the sign test, with the sequential one its confidence sequence and
 * always-valid p-value; `method` overrides the design's recorded method for this read.
 */
export function interleavingResult(
  design: InterleavingDesign,
  users: readonly UserTeamCounts[],
  method?: AnalysisMethod,
): InterleavingAnalysis {
  const teams = interleavingTeams(design);
  const stats = analyzeInterleaving(users, {
    confidenceLevel: design.confidence_level,
    minimumSampleSize: design.minimum_sample_size,
    method: interleavingMethodOf(design, method),
  });
  const impressions = users.reduce((sum, u) => ({ a: sum.a + u.impressionsA, b: sum.b + u.impressionsB }), { a: 0, b: 0 });
  const winner = !stats.significant || stats.preferenceShare === null ? null : stats.preferenceShare > 0.5 ? teams.a : teams.b;
  return {
    type: 'interleaving',
    experiment_id: design.id,
    method: stats.method === 'sequential' ? 'team_draft_sequential' : 'team_draft_sign_test',
    analysis_method: stats.method,
    sequential_tuning: stats.tuning,
    confidence_level: design.confidence_level,
    variant: teams.a,
    control: teams.b,
    teams: [
      { name: teams.a, is_control: false, wins: stats.winsA, credited_clicks: stats.creditedA, impressions: impressions.a },
      { name: teams.b, is_control: true, wins: stats.winsB, credited_clicks: stats.creditedB, impressions: impressions.b },
    ],
    users: stats.users,
    users_with_preference: stats.winsA + stats.winsB,
    ties: stats.ties,
    users_without_clicks: stats.noClicks,
    preference_share: stats.preferenceShare,
    ci_low: stats.ciLow,
    ci_high: stats.ciHigh,
    p_value: stats.pValue,
    minimum_sample_size: design.minimum_sample_size,
    underpowered: stats.underpowered,
    significant: stats.significant,
    winner,
  };
}

/** How `experiment status` and `analyze` print an interleaving experiment's analysis. */
import type { InterleavingAnalysis } from '../../src/experiments/interleaving/interleaving-analysis.schema.js';
import { formatCount, renderTable } from '../support/output.js';
import { methodLine } from './analyze-method.view.js';

const percent = (value: number | null): string => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);
const pValue = (value: number | null): string => (value === null ? '–' : value < 1e-4 ? value.toExponential(2) : value.toFixed(4));

/** The report: users and ties, a table per ranker, and the preference share with its interval and sign test. */
export function renderInterleaving(analysis: InterleavingAnalysis, title: string): string {
  const level = `${Math.round(analysis.confidence_level * 1000) / 10}%`;
  const table = renderTable(
    ['ranker', 'role', 'wins', 'credited clicks', 'items served'],
    analysis.teams.map((team) => [
      team.name,
      team.is_control ? 'control' : 'under test',
      formatCount(team.wins),
      formatCount(team.credited_clicks),
      formatCount(team.impressions),
    ]),
  );
  const sequential = analysis.analysis_method === 'sequential';
  const share =
    `preference for ${analysis.variant}: ${percent(analysis.preference_share)} ` +
    `[${percent(analysis.ci_low)}, ${percent(analysis.ci_high)}] (${level} ${sequential ? 'confidence sequence' : 'Wilson'}), ` +
    `p = ${pValue(analysis.p_value)} (${sequential ? 'always-valid, vs 50%' : 'exact sign test vs 50%'})`;
  return [
    `${title}: interleaving (team draft), clicks credited to the ranker that contributed the post`,
    `users served interleaved lists: ${formatCount(analysis.users)} — with a preference ${formatCount(analysis.users_with_preference)}, ` +
      `ties ${formatCount(analysis.ties)} (excluded), without clicks ${formatCount(analysis.users_without_clicks)}`,
    methodLine(analysis, 'users with a preference'),
    table,
    share,
    verdict(analysis),
  ].join('\n');
}

function verdict(analysis: InterleavingAnalysis): string {
  if (analysis.underpowered) {
    return `underpowered: ${formatCount(analysis.users_with_preference)} users with a preference, ${formatCount(analysis.minimum_sample_size)} needed before a verdict`;
  }
  if (analysis.winner !== null) return `verdict: users prefer ${analysis.winner} (significant)`;
  return 'verdict: no significant preference';
}

/**
 * Shape of the analysis of an interleaving experiment (`GET …/experiments/{id}/analysis` for
 * an experiment of type `interleaving`, and `recsvc experiment analyze --json`). The ranker
 * under test is the non-control variant; its preference share is the share of users with a
 * preference who preferred it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SequentialTuningSchema } from '../experiment-analysis.schema.js';
import { AnalysisMethodSchema } from '../experiment.schema.js';

const NullableNumber = (description?: string) => Type.Union([Type.Number(), Type.Null()], description === undefined ? {} : { description });

export const InterleavingTeamSchema = Type.Object(
  {
    name: Type.String({ description: 'The variant (ranker)' }),
    is_control: Type.Boolean(),
    wins: Type.Integer({ description: 'Users who clicked more of its items than of the other ranker’s' }),
    credited_clicks: Type.Integer({ description: 'Accepted clicks on items it contributed' }),
    impressions: Type.Integer({ description: 'Items it contributed to served lists' }),
  },
  { title: 'InterleavingTeam' },
);

export const InterleavingAnalysisSchema = Type.Object(
  {
    type: Type.Literal('interleaving'),
    experiment_id: Type.Integer(),
    method: Type.Union([Type.Literal('team_draft_sign_test'), Type.Literal('team_draft_sequential')], {
      description:
        'Team-draft interleaving; per user, clicks credited to the ranker that contributed the item; team_draft_sign_test: exact binomial sign test and Wilson interval (fixed horizon); team_draft_sequential: always-valid mSPRT p-value and confidence sequence (read at any time)',
    }),
    analysis_method: AnalysisMethodSchema,
    sequential_tuning: Type.Union([SequentialTuningSchema, Type.Null()], {
      description: 'The sequential method’s mixing parameter (target_sample_size counts users with a preference); null with fixed',
    }),
    confidence_level: Type.Number(),
    variant: Type.String({ description: 'The ranker under test (the non-control variant)' }),
    control: Type.String(),
    teams: Type.Array(InterleavingTeamSchema, { minItems: 2, maxItems: 2 }),
    users: Type.Integer({ description: 'Enrolled users served at least one interleaved list' }),
    users_with_preference: Type.Integer({ description: 'Users whose credited clicks differ between the rankers' }),
    ties: Type.Integer({ description: 'Users with clicks, equally credited to both rankers (excluded from the share)' }),
    users_without_clicks: Type.Integer(),
    preference_share: NullableNumber('wins of `variant` / users_with_preference; 0.5 means no preference; null when nobody has one'),
    ci_low: NullableNumber(
      'Interval of the preference share at the confidence level: Wilson score interval (fixed) or confidence sequence (sequential)',
    ),
    ci_high: NullableNumber(),
    p_value: NullableNumber('Preference share = 0.5: exact two-sided binomial sign test (fixed) or always-valid p-value (sequential)'),
    minimum_sample_size: Type.Integer({ description: 'Users with a preference needed before a result may be significant' }),
    underpowered: Type.Boolean(),
    significant: Type.Boolean({ description: 'p < 1 - confidence_level and not underpowered' }),
    winner: Type.Union([Type.String(), Type.Null()], { description: 'The preferred ranker when significant, else null' }),
  },
  { title: 'InterleavingAnalysis' },
);
export type InterleavingAnalysis = Static<typeof InterleavingAnalysisSchema>;

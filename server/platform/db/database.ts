/**
 * The kysely `Database` interface: one table type per feature, assembled here.
 * Row types stay inside repositories; services map them to domain types.
 */
import type { AgentTables } from '../agents/agents.tables.js';
import type { AnalyticsTables } from '../../experiments/events/analytics.tables.js';
import type { AuthTables } from '../auth/auth.tables.js';
import type { ExperimentTables } from '../../experiments/experiment.tables.js';
import type { FaspTables } from '../../fasp/fasp.tables.js';
import type { InterleavingTables } from '../../experiments/interleaving/interleaving.tables.js';
import type { PrivacyTables } from '../../privacy/privacy.tables.js';
import type { InteractionTables } from '../../interactions/interactions.tables.js';
import type { OAuthTables } from '../../oauth/oauth.tables.js';
import type { PostTables } from '../../posts/posts.tables.js';
import type { RecommendationTables } from '../../recommendations/recommendations.tables.js';
import type { SettingsTables } from '../../settings/settings.tables.js';

export interface Database
  extends
    AuthTables,
    PostTables,
    InteractionTables,
    RecommendationTables,
    ExperimentTables,
    AnalyticsTables,
    OAuthTables,
    SettingsTables,
    AgentTables,
    FaspTables,
    InterleavingTables,
    PrivacyTables {}

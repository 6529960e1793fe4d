/**
 * The migrations, listed explicitly (not read from a folder) so they work after
 * compiling. Append only; never edit a migration that has shipped.
 */
import type { Migration } from 'kysely';
import * as m0001 from './0001-tokens.js';
import * as m0002 from './0002-posts.js';
import * as m0003 from './0003-interactions.js';
import * as m0010 from './0010-experiments.js';
import * as m0011 from './0011-experiment-events.js';
import * as m0012 from './0012-interactions-drop-user-index.js';
import * as m0013 from './0013-affinities-clustered.js';
import * as m0014 from './0014-analytics-event-verdicts.js';
import * as m0015 from './0015-user-interests.js';
import * as m0016 from './0016-oauth.js';
import * as m0017 from './0017-oauth-consents.js';
import * as m0018 from './0018-experiment-analysis-method.js';
import * as m0019 from './0019-settings.js';
import * as m0020 from './0020-privacy.js';
import * as m0021 from './0021-experiment-user-counts.js';
import * as m0022 from './0022-experiment-primary-metric.js';
import * as m0023 from './0023-experiment-type.js';
import * as m0024 from './0024-tokens-change-signal.js';
import * as m0025 from './0025-experiment-user-day-counts.js';
import * as m0026 from './0026-privacy-change-signal.js';
import * as m0027 from './0027-experiments-change-signal.js';
import * as m0028 from './0028-user-preferences-allow-sensitive.js';
import * as m0029 from './0029-agent-runs.js';
import * as m0030 from './0030-user-settings-change-signal.js';
import * as m0031 from './0031-post-identity.js';
import * as m0034 from './0034-interactions-user-time.js';
import * as m0038 from './0038-fasp-servers.js';
import * as m0045 from './0045-fasp-data.js';
import * as m0050 from './0050-ranking-fits.js';
import * as m0051 from './0051-item-models.js';
import * as m0052 from './0052-item-model-bytes.js';

export const MIGRATIONS: Record<string, Migration> = {
  '0001-tokens': m0001,
  '0002-posts': m0002,
  '0003-interactions': m0003,
  '0010-experiments': m0010,
  '0011-experiment-events': m0011,
  '0012-interactions-drop-user-index': m0012,
  '0013-affinities-clustered': m0013,
  '0014-analytics-event-verdicts': m0014,
  '0015-user-interests': m0015,
  '0016-oauth': m0016,
  '0017-oauth-consents': m0017,
  '0018-experiment-analysis-method': m0018,
  '0019-settings': m0019,
  '0020-privacy': m0020,
  '0021-experiment-user-counts': m0021,
  '0022-experiment-primary-metric': m0022,
  '0023-experiment-type': m0023,
  '0024-tokens-change-signal': m0024,
  '0025-experiment-user-day-counts': m0025,
  '0026-privacy-change-signal': m0026,
  '0027-experiments-change-signal': m0027,
  '0028-user-preferences-allow-sensitive': m0028,
  '0029-agent-runs': m0029,
  '0030-user-settings-change-signal': m0030,
  '0031-post-identity': m0031,
  '0034-interactions-user-time': m0034,
  '0038-fasp-servers': m0038,
  '0045-fasp-data': m0045,
  '0050-ranking-fits': m0050,
  '0051-item-models': m0051,
  '0052-item-model-bytes': m0052,
};

/**
 * The app's context: the platform's services (PlatformContext) and the deployment's settings
 * and runtimes that the features share. Made by server/app.ts and handed by server/features.ts,
 * the composition root; each feature names the slice it uses rather than importing this.
 */
import type { SourceShares } from '../src/ranking/index.js';
import type { CacheLimits } from './config.js';
import type { FaspOptions } from './fasp/fasp.feature.js';
import type { OAuthDeps } from './oauth/oauth.feature.js';
import type { PlatformContext } from './platform/context.js';
import type { PrivacyPolicyService } from './privacy/privacy.feature.js';
import type { RagRuntime } from './rag/rag.feature.js';

export interface AppContext extends PlatformContext {
  /** Bounds of the ranking state's caches; unset ones take the state's defaults. */
  caches: Partial<CacheLimits>;
  /** Largest share of the candidate pool and of a trending page per source instance and author. */
  sourceShares: SourceShares;
  oauth: OAuthDeps;
  /** Whether the proxy and drop-in mode are registered. */
  proxy: boolean;
  /** The CORS origins the app was built with (the integration settings report them). */
  corsOrigins: '*' | readonly string[];
  /** The RAG index (health reports its size), its settings and privacy hook. */
  rag: RagRuntime;
  /** What each user's tracking level lets every write path store, and the pseudonyms of analytics tables. */
  privacy: PrivacyPolicyService;
  /** The FASP provider's settings and key, when it is on. */
  fasp: FaspOptions | undefined;
}

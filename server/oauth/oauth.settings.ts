/** The OAuth server's settings: lifetimes and the instance users log in at when they name none. */
import { InputError } from '../../src/errors.js';
import { parseDurationSetting, type DurationBounds } from '../platform/duration-setting.js';

export interface OAuthSettings {
  /** Access tokens' lifetime in seconds (`expires_in`); 24 h by default. */
  accessTokenTtlSeconds: number;
  /** Refresh tokens' lifetime in seconds, from their issue; 30 days by default. */
  refreshTokenTtlSeconds: number;
  /** Authorization codes' lifetime in seconds; 10 minutes. */
  codeTtlSeconds: number;
  /** How long a user has to log in at their instance and come back; 10 minutes. */
  loginTtlSeconds: number;
  /** How long the consent page's ticket stays good (approve or deny within it); 5 minutes. */
  consentTtlSeconds: number;
  /** The instance used when an authorization request names none (RECSVC_DEFAULT_INSTANCE, read with the social settings). */
  defaultInstance: string | undefined;
  /** What the service asks the instance for: only enough to read who the user is. */
  instanceScopes: string;
  /** The app name the service registers on instances (shown to users there). */
  clientName: string;
}

export const DEFAULT_OAUTH_SETTINGS: OAuthSettings = {
  accessTokenTtlSeconds: 86_400,
  refreshTokenTtlSeconds: 30 * 86_400,
  codeTtlSeconds: 600,
  loginTtlSeconds: 600,
  consentTtlSeconds: 300,
  defaultInstance: undefined,
  instanceScopes: 'read:accounts',
  clientName: 'recsvc',
};

type Env = Record<string, string | undefined>;

/** A token lifetime: at least a minute, at most ten years. */
const TOKEN_TTL_SECONDS: DurationBounds = { unit: 'seconds', min: 60, max: 10 * 365 * 86_400 };

function seconds(env: Env, name: string, fallback: number): number {
  return parseDurationSetting(name, env[name], fallback, TOKEN_TTL_SECONDS);
}

/**
 * The lifetimes from RECSVC_OAUTH_ACCESS_TOKEN_TTL and RECSVC_OAUTH_REFRESH_TOKEN_TTL (seconds);
 * InputError (exit 2 at start) on a bad value. The default instance comes from the social
 * settings (server/platform/social/social-options.ts reads RECSVC_DEFAULT_INSTANCE).
 */
export function readOAuthSettings(env: Env = process.env): Pick<OAuthSettings, 'accessTokenTtlSeconds' | 'refreshTokenTtlSeconds'> {
  const accessTokenTtlSeconds = seconds(env, 'RECSVC_OAUTH_ACCESS_TOKEN_TTL', DEFAULT_OAUTH_SETTINGS.accessTokenTtlSeconds);
  const refreshTokenTtlSeconds = seconds(env, 'RECSVC_OAUTH_REFRESH_TOKEN_TTL', DEFAULT_OAUTH_SETTINGS.refreshTokenTtlSeconds);
  if (refreshTokenTtlSeconds <= accessTokenTtlSeconds) {
    throw new InputError('RECSVC_OAUTH_REFRESH_TOKEN_TTL must be longer than RECSVC_OAUTH_ACCESS_TOKEN_TTL');
  }
  return { accessTokenTtlSeconds, refreshTokenTtlSeconds };
}

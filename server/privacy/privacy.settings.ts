/**
 * Settings of the privacy feature: the deployment's default tracking level
 * (RECSVC_DEFAULT_TRACKING_LEVEL, default `limited`) and the pseudonym key
 * (RECSVC_PSEUDONYM_KEY; when unset, a key file beside the database, see pseudonym-key.ts).
 */
import { InputError } from '../../src/errors.js';
import { DEFAULT_TRACKING_LEVEL, isTrackingLevel, TRACKING_LEVELS, type TrackingLevel } from '../../src/privacy/tracking-level.js';

export interface PrivacySettings {
  /** The level of every user who has not chosen one. */
  defaultLevel: TrackingLevel;
  /** The pseudonym key as configured (hex or base64, at least 32 bytes); absent: the key file. */
  pseudonymKey: string | undefined;
}

export const DEFAULT_PRIVACY_SETTINGS: PrivacySettings = { defaultLevel: DEFAULT_TRACKING_LEVEL, pseudonymKey: undefined };

type Env = Record<string, string | undefined>;

/** Reads the privacy settings; InputError (exit 2 at start) naming the bad variable. */
export function readPrivacySettings(env: Env = process.env): PrivacySettings {
  const level = env.RECSVC_DEFAULT_TRACKING_LEVEL;
  let defaultLevel: TrackingLevel = DEFAULT_TRACKING_LEVEL;
  if (level !== undefined && level !== '') {
    if (!isTrackingLevel(level)) {
      throw new InputError(`RECSVC_DEFAULT_TRACKING_LEVEL must be one of ${TRACKING_LEVELS.join(', ')}, got "${level}"`);
    }
    defaultLevel = level;
  }
  const key = env.RECSVC_PSEUDONYM_KEY;
  return { defaultLevel, pseudonymKey: key === undefined || key === '' ? undefined : key };
}

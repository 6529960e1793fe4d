/**
 * The FASP provider's settings: on with `serve --fasp` or RECSVC_FASP=1 (off by default);
 * RECSVC_FASP_PATH (default `/fasp`) under the public URL; what `/provider_info` says:
 * RECSVC_FASP_NAME, RECSVC_FASP_PRIVACY_POLICY_URL (+ RECSVC_FASP_PRIVACY_POLICY_LANGUAGE,
 * default `en`), RECSVC_FASP_CONTACT_EMAIL, RECSVC_FASP_SIGN_IN_URL.
 */
import { InputError } from '../../src/errors.js';

export interface FaspSettings {
  /** Where the FASP API is mounted, `/fasp` by default (a leading slash, no trailing one). */
  readonly path: string;
  readonly name: string;
  readonly privacyPolicy: readonly { url: string; language: string }[];
  readonly contactEmail: string | undefined;
  readonly signInUrl: string | undefined;
}

export const DEFAULT_FASP_PATH = '/fasp';

/** The FASP settings, or undefined when the provider is off. */
export function readFaspSettings(env: Record<string, string | undefined>, flag: boolean | undefined): FaspSettings | undefined {
  if (flag !== true && env.RECSVC_FASP !== '1') return undefined;
  return faspSettingsFrom(env);
}

/** The settings from the environment, on or off (the CLI's `fasp register` reads the path and name). */
export function faspSettingsFrom(env: Record<string, string | undefined>): FaspSettings {
  const path = `/${(env.RECSVC_FASP_PATH ?? DEFAULT_FASP_PATH).replace(/^\/+|\/+$/g, '')}`;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path))
    throw new InputError(`RECSVC_FASP_PATH must be a URL path such as /fasp, got "${env.RECSVC_FASP_PATH}"`);
  const policy = env.RECSVC_FASP_PRIVACY_POLICY_URL;
  return {
    path,
    name: env.RECSVC_FASP_NAME ?? 'recsvc',
    privacyPolicy: policy === undefined ? [] : [{ url: policy, language: env.RECSVC_FASP_PRIVACY_POLICY_LANGUAGE ?? 'en' }],
    contactEmail: env.RECSVC_FASP_CONTACT_EMAIL,
    signInUrl: env.RECSVC_FASP_SIGN_IN_URL,
  };
}

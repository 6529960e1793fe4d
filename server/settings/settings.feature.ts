/**
 * Registers the settings feature: `/api/v1/settings` (a user's own settings) and
 * `/api/v1/settings/integration` (admin), the experiments opt-out (an exclusion rule of
 * the experiments runtime) and the localisation of recommendation reasons.
 */
import type { FastifyInstance } from 'fastify';
import type { IntegrationValues } from '../../src/settings/settings.schema.js';
import type { PlatformContext } from '../platform/context.js';
import { IntegrationSettingsService, type IntegrationSettingsDeps } from './integration-settings.service.js';
import { addReasonLocaliser } from './reason-localiser.js';
import { settingsRoutes } from './settings.routes.js';
import { UserSettingsService, type EnrolmentControl, type PreferenceStore } from './user-settings.service.js';

export { IntegrationSettingsService, type IntegrationListener } from './integration-settings.service.js';
export type { IntegrationValues } from '../../src/settings/settings.schema.js';
export { UserSettingsService, type EnrolmentControl, type PreferenceStore } from './user-settings.service.js';

export interface SettingsDeps {
  /** The recommendation preferences' owner (FeedbackService): ratio, languages, reblogs. */
  preferences: PreferenceStore;
  /** The experiments runtime: opted-out users are never enrolled. */
  experiments?: EnrolmentControl;
  /** The deployment's startup values of the integration settings (its configuration). */
  startup?: IntegrationSettingsDeps['startup'];
  /** Integration settings whose consumers subscribe to changes (see IntegrationSettingsService). */
  live?: IntegrationSettingsDeps['live'];
}

export interface SettingsFeature {
  users: UserSettingsService;
  integration: IntegrationSettingsService;
}

/**
 * The integration values a starting service applies: the stored ones, else its configuration
 * (`startup`), else the defaults. For start.ts, before buildApp: CORS is configured then.
 */
export async function storedIntegrationValues(
  db: PlatformContext['database']['db'],
  startup: IntegrationSettingsDeps['startup'] = {},
): Promise<IntegrationValues> {
  return new IntegrationSettingsService({ db, startup }).load();
}

/** Settings routes and the reason localiser; call it on the root instance so the localiser sees every route. */
export async function registerSettings(
  app: FastifyInstance,
  context: Pick<PlatformContext, 'database' | 'social'>,
  deps: SettingsDeps,
): Promise<SettingsFeature> {
  const db = context.database.db;
  const users = new UserSettingsService({
    db,
    preferences: deps.preferences,
    ...(deps.experiments ? { experiments: deps.experiments } : {}),
  });
  const integration = new IntegrationSettingsService({
    db,
    startup: { default_instance: context.social.options.defaultInstance ?? null, ...deps.startup },
    allowInsecureInstances: context.social.options.allowInsecure,
    ...(deps.live ? { live: deps.live } : {}),
  });
  await integration.load();
  // PostgreSQL: another instance's change of a user's settings reaches this one at once.
  context.database.onUserSettingsChange((userId) => users.changedElsewhere(userId));
  addReasonLocaliser(app, (userId, acceptLanguage) => users.reasonLanguage(userId, acceptLanguage));
  await app.register(settingsRoutes, { users, integration });
  return { users, integration };
}

/**
 * The settings' part of a user's data (the privacy feature's `UserDataPart`, wired in
 * server/features.ts): `integration_settings.updated_by` names the admin who last changed a
 * setting. The export shows those rows; an erasure keeps the values and forgets the name.
 * (`user_settings` has a `user_id` column: the privacy feature finds it itself.)
 */
import type { UserDataPart } from '../privacy/user-data.types.js';
import { forgetSettingsAuthor, settingsChangedBy } from './settings.repository.js';

export const settingsUserData: UserDataPart = {
  async exportRows(db, keys) {
    const authored = await settingsChangedBy(db, keys);
    return authored.length > 0 ? { integration_settings: authored } : {};
  },
  async erase(trx, keys) {
    await forgetSettingsAuthor(trx, keys);
    return { deleted: {}, credentialsRevoked: 0 };
  },
};

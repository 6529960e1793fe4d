/**
 * The OAuth server's part of a user's erasure (the privacy feature's `UserDataPart`, wired in
 * server/features.ts): the live token families are counted as revoked credentials, and the
 * families' refresh tokens, which carry no `user_id`, are deleted before the families go with
 * the other tables that have one.
 */
import type { UserDataPart } from '../privacy/user-data.types.js';
import { countLiveFamilies, deleteRefreshTokensOfUsers } from './oauth.repository.js';

export const oauthUserData: UserDataPart = {
  async erase(trx, keys) {
    const credentialsRevoked = await countLiveFamilies(trx, keys);
    const refreshTokens = await deleteRefreshTokensOfUsers(trx, keys);
    return { deleted: refreshTokens === 0 ? {} : { oauth_refresh_tokens: refreshTokens }, credentialsRevoked };
  },
};

/**
 * The one question every write path asks before storing something about a user, and the
 * keyed hash that stands for the user in analytics tables. Implemented by
 * privacy-policy.service.ts; write paths depend on this interface only.
 */
import { allowanceOf, type TrackingAllowance, type TrackingLevel } from '../../src/privacy/tracking-level.js';

export interface PrivacyPolicy {
  /** The user's tracking level (their own setting, else the deployment default). Synchronous: cached. */
  levelOf(userId: string): TrackingLevel;
  /** allowanceOf(levelOf(userId)). */
  allowanceFor(userId: string): TrackingAllowance;
  /** HMAC-SHA256 of the canonical user id under the deployment's pseudonym key, hex, 64 chars. */
  pseudonym(userId: string): string;
}

/**
 * The policy of code built without the deployment's (unit tests of one service, tools):
 * every user at `full`, ids stored as given — the behaviour from before tracking levels.
 * Apps always pass the real one (server/app.ts).
 */
export const UNWIRED_PRIVACY: PrivacyPolicy = Object.freeze({
  levelOf: () => 'full' as const,
  allowanceFor: () => allowanceOf('full'),
  pseudonym: (userId: string) => userId,
});

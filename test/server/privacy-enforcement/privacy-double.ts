/**
 * A small PrivacyPolicy for the enforcement tests: levels set by hand per user (else a
 * default), and the pseudonym as the interface defines it (hex HMAC-SHA256 under a key),
 * with a fixed test key. Stands in for privacy-policy.service.ts, whose storage these
 * tests are not about.
 */
import { createHmac } from 'node:crypto';
import { allowanceOf, type TrackingAllowance, type TrackingLevel } from '../../../src/privacy/tracking-level.js';
import type { PrivacyPolicy } from '../../../server/privacy/privacy-policy.types.js';

export class PrivacyDouble implements PrivacyPolicy {
  private readonly levels = new Map<string, TrackingLevel>();

  constructor(
    private readonly defaultLevel: TrackingLevel = 'limited',
    private readonly key = Buffer.from('privacy-enforcement-test-key'),
  ) {}

  /** Sets a user's level. */
  set(userId: string, level: TrackingLevel): this {
    this.levels.set(userId, level);
    return this;
  }

  levelOf(userId: string): TrackingLevel {
    return this.levels.get(userId) ?? this.defaultLevel;
  }

  allowanceFor(userId: string): TrackingAllowance {
    return allowanceOf(this.levelOf(userId));
  }

  pseudonym(userId: string): string {
    return createHmac('sha256', this.key).update(userId, 'utf8').digest('hex');
  }
}

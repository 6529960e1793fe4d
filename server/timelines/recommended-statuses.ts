/**
 * Recommendations as a timeline injects them: the stored status as the posts service renders
 * it (every field a Mastodon 4.5 instance sends: toStatus completes it through
 * src/mastodon/entities.ts), with the ranking fields of toRecommendedPost, as JSON. The JSON is the posts service's cached status prefix (the status cache's, shared with
 * /api/v1/recommendations), so a hot recommendation is serialised once, not on every page.
 */
import type { Status } from '../../src/schemas/post.schema.js';
import { toRecommendedPost, type Recommendation } from '../recommendations/recommendation.service.js';
import { CANDIDATE_CONSENT, consentsToDiscovery, isSensitive } from '../../src/mastodon/timeline-consent.js';

/** A recommendation to inject: the post it is and its JSON. */
export interface InjectedStatus {
  readonly status: Status;
  readonly json: string;
  /** A recommendation's `recommendation_metadata` (absent for a degraded page's recent posts). */
  readonly metadata?: { readonly reason_code: string; readonly reason_string: string; readonly score: number };
}

/**
 * Whether the stored status' authors consent, once per rendered status:
 * the status cache hands out the same object while a post is unchanged and patches only its
 * counters in place, which consent does not depend on.
 */
const consenting = new WeakMap<Status, boolean>();

/**
 * The stored status may be injected as a user's recommendation (consentsToDiscovery). A
 * sensitive one passes: the user's ranking already left it out unless they allow sensitive posts.
 */
export function storedStatusConsents(status: Status): boolean {
  let consents = consenting.get(status);
  if (consents === undefined) {
    consents = consentsToDiscovery(status, CANDIDATE_CONSENT);
    consenting.set(status, consents);
  }
  return consents;
}

/** The stored status may be shown to nobody in particular (no user's preference applies): consenting and not sensitive. */
export function storedStatusConsentsForAnyone(status: Status): boolean {
  return storedStatusConsents(status) && !isSensitive(status);
}

const NO_STATUS = {} as Status;

/**
 * A recommendation as injected: its JSON is the status' cached JSON prefix with the ranking
 * fields appended (`{...status, ranking fields}` serialised, without building that object).
 */
export function injectedStatus(recommendation: Recommendation, prefix: string): InjectedStatus {
  const fields = toRecommendedPost({ item: recommendation.item, status: NO_STATUS });
  return {
    status: recommendation.status,
    json: `${prefix},${JSON.stringify(fields).slice(1)}`,
    metadata: fields.recommendation_metadata,
  };
}

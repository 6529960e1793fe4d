/**
 * Recommendations as a timeline injects them: the stored status completed to every field a
 * Mastodon 4.5 instance sends (completeStatus), with the ranking fields of toRecommendedPost,
 * as an object and as JSON. The completed status and its JSON are kept per rendered status
 * (the posts service's status cache hands out the same object while a post is unchanged, and
 * patches only its counters in place), so a hot recommendation is completed and serialised
 * once, not on every page that injects it.
 */
import { completeStatus } from '../../src/mastodon/entities.js';
import type { Status } from '../../src/schemas/post.schema.js';
import { toRecommendedPost, type Recommendation } from '../recommendations/recommendation.service.js';
import type { StatusJson } from './timeline-consent.js';

interface Completed {
  readonly counts: string;
  /** The completed status without the ranking fields (consent and page keys are checked on it). */
  readonly status: StatusJson;
  /** Its JSON without the closing brace. */
  readonly prefix: string;
}

const completed = new WeakMap<Status, Completed>();
const NO_STATUS = {} as Status;

function countsOf(status: Status): string {
  return `${status.favourites_count}|${status.reblogs_count}|${status.replies_count}`;
}

/** The stored status completed (cached while its counters are unchanged). */
export function completedStatus(status: Status): Completed {
  const counts = countsOf(status);
  const cached = completed.get(status);
  if (cached !== undefined && cached.counts === counts) return cached;
  const full = completeStatus(status);
  const entry = { counts, status: full, prefix: JSON.stringify(full).slice(0, -1) };
  completed.set(status, entry);
  return entry;
}

/** A recommendation as injected: `{...completeStatus(status), ranking fields}`, and its JSON. */
export function injectedStatus(recommendation: Recommendation): { status: StatusJson; json: string } {
  const base = completedStatus(recommendation.status);
  const fields = toRecommendedPost({ item: recommendation.item, status: NO_STATUS });
  return { status: { ...base.status, ...fields }, json: `${base.prefix},${JSON.stringify(fields).slice(1)}` };
}

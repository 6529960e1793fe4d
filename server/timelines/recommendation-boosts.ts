/**
 * Recommendations as clients that know nothing of recsvc keep them (docs/clients.md): a boost
 * by a service account, dated at its insertion point.
 *
 * Clients drop what they do not know (megalodon's converter keeps no unknown field) and many
 * sort a page by `created_at` (Phanpy): a status injected as itself showed up far down the
 * page at its own date, unmarked. A reblog wrapper is something every client renders ("…
 * boosted"); dated between its neighbours it stays where it was woven in whatever the client
 * sorts by; its account's display name says that it is a recommendation and why; and the
 * wrapped status is the reader's instance's own (reader-local ids), so favourite, boost and
 * reply act on it at the reader's instance as on any boost. recsvc-aware clients read
 * `is_recommendation` and `recommendation_metadata` on the wrapper (the wrapped status keeps
 * them too).
 *
 * `RECSVC_TIMELINE_RECOMMENDATIONS=inline` serves the status itself instead (the first releases'
 * shape), for clients that read the fields and show statuses in the order sent.
 */
import { idForUri } from '../../src/mastodon/status-origin.js';
import type { ReasonCode } from '../../src/schemas/recommendation.schema.js';

/** How injected recommendations are represented in a timeline page. */
export type RecommendationStyle = 'boost' | 'inline';
export const RECOMMENDATION_STYLES: readonly RecommendationStyle[] = ['boost', 'inline'];
export const DEFAULT_RECOMMENDATION_STYLE: RecommendationStyle = 'boost';

/** What a boost needs to know of the page it goes into. */
export interface BoostContext {
  /** The service's public origin (`https://recsvc.example`): the service account lives there. */
  readonly serviceOrigin: string;
  /** The reader's instance's origin: its default avatar and header images. */
  readonly instanceOrigin: string;
  /** The reader (the wrapper's id is theirs: two readers never share one). */
  readonly userId: string;
}

/** The display name of the service account per reason: what a client shows as "… boosted". */
const REASON_LABELS: Readonly<Record<ReasonCode, string>> = {
  AUTHOR_INTERACTION: 'Recommended: an author you interact with',
  HIGH_ENGAGEMENT: 'Recommended: popular here',
  SEMANTIC_MATCH: 'Recommended: like posts you liked',
  TRENDING_TAG: 'Recommended: trending',
  COLLABORATIVE: 'Recommended: liked by people like you',
};
const GENERIC_LABEL = 'Recommended for you';

/**
 * Account ids an instance will not hand out before 2100 (a snowflake of that date), one per
 * reason: a client caching accounts by id never shows one reason's name for another's.
 */
const ACCOUNT_EPOCH_MS = Date.UTC(2100, 0, 1);
const ACCOUNT_CREATED_AT = '2026-01-01T00:00:00.000Z';

/** The insertion point's time: between its newer and older neighbours (ms since the epoch), or next to the one there is. */
export function insertionTimeMs(newerMs: number | undefined, olderMs: number | undefined, fallbackMs: number): number {
  if (newerMs !== undefined && olderMs !== undefined) {
    if (newerMs <= olderMs) return newerMs; // equal (or out of order): keep the sort's tie, not a jump
    return olderMs + Math.floor((newerMs - olderMs) / 2);
  }
  if (olderMs !== undefined) return olderMs + 1;
  if (newerMs !== undefined) return newerMs - 1;
  return fallbackMs;
}

/** A status' `created_at` in ms, when it has a readable one. */
export function createdAtMs(status: { created_at?: unknown }): number | undefined {
  if (typeof status.created_at !== 'string') return undefined;
  const ms = Date.parse(status.created_at);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The service account that boosts recommendations of this reason. */
export function serviceAccount(reasonCode: string, context: BoostContext): Record<string, unknown> {
  const label = REASON_LABELS[reasonCode as ReasonCode] ?? GENERIC_LABEL;
  const host = new URL(context.serviceOrigin).host;
  const code = reasonCode in REASON_LABELS ? reasonCode.toLowerCase() : 'generic';
  const uri = `${context.serviceOrigin}/recommended/${code}`;
  return {
    id: idForUri(ACCOUNT_EPOCH_MS, uri),
    username: 'recommended',
    acct: `recommended@${host}`,
    display_name: label,
    locked: false,
    bot: true,
    discoverable: false,
    indexable: false,
    group: false,
    created_at: ACCOUNT_CREATED_AT,
    note: '<p>Posts recommended to you by recsvc, the recommendation service of this timeline.</p>',
    url: `${context.serviceOrigin}/`,
    uri,
    avatar: `${context.instanceOrigin}/avatars/original/missing.png`,
    avatar_static: `${context.instanceOrigin}/avatars/original/missing.png`,
    header: `${context.instanceOrigin}/headers/original/missing.png`,
    header_static: `${context.instanceOrigin}/headers/original/missing.png`,
    followers_count: 0,
    following_count: 0,
    statuses_count: 0,
    last_status_at: null,
    hide_collections: true,
    noindex: true,
    emojis: [],
    roles: [],
    fields: [],
  };
}

/** What the wrapper carries of the recommendation. */
export interface BoostedRecommendation {
  /** The wrapped status' JSON as the reader's instance names it (an object's text). */
  readonly json: string;
  /** Its uri: with the reader and the time it makes the wrapper's id. */
  readonly uri: string;
  readonly reasonCode: string;
  readonly metadata: Record<string, unknown>;
}

/**
 * The boost of `recommendation` by the service account, dated `atMs`, as JSON text. The
 * wrapper's id is a snowflake of that date (low bits from the reader and the status), so it
 * sorts by id where it sorts by date; it names nothing at the instance (actions go to the
 * wrapped status, as for every boost).
 */
export function boostJson(recommendation: BoostedRecommendation, atMs: number, context: BoostContext): string {
  const id = idForUri(atMs, `${context.userId} ${recommendation.uri}`);
  const inner = unwrapped(recommendation.json);
  const wrapper = {
    id,
    created_at: new Date(atMs).toISOString(),
    in_reply_to_id: null,
    in_reply_to_account_id: null,
    sensitive: false,
    spoiler_text: '',
    visibility: 'public',
    language: null,
    uri: `${context.serviceOrigin}/recommended/statuses/${id}`,
    url: null,
    replies_count: 0,
    reblogs_count: 0,
    favourites_count: 0,
    edited_at: null,
    favourited: false,
    reblogged: false,
    muted: false,
    bookmarked: false,
    content: '',
    filtered: [],
    application: null,
    account: serviceAccount(recommendation.reasonCode, context),
    media_attachments: [],
    mentions: [],
    tags: [],
    emojis: [],
    card: null,
    poll: null,
    is_recommendation: true,
    recommendation_metadata: recommendation.metadata,
  };
  // The wrapped status' JSON is spliced in as it is (the status cache's text), not re-serialised.
  return `${JSON.stringify(wrapper).slice(0, -1)},"reblog":${inner}}`;
}

/** A boost wraps an original: a recommended boost is wrapped as its original (Mastodon never nests reblogs). */
function unwrapped(json: string): string {
  if (!json.includes('"reblog":{')) return json;
  const status = JSON.parse(json) as { reblog?: unknown };
  return status.reblog !== null && typeof status.reblog === 'object' ? JSON.stringify(status.reblog) : json;
}

/**
 * Blended timelines: a page of the caller's Mastodon timeline, fetched from their instance
 * with their token and Mastodon's own paging, its consenting statuses stored as candidate
 * posts (through PostService.ingest, i.e. writeStatuses, announced to the ranking state),
 * and recommendations woven in.
 *
 * - Real statuses are the instance's JSON objects untouched, plus `is_recommendation: false`.
 * - Recommendations take `ratio` of the page (the user's `recommendation_ratio`, else 0.4
 *   for users whose engagement rate is above 0.7 when an engagement source is wired, else
 *   0.3), at the points of planSeamlessInsertions (spread, never first, never adjacent),
 *   never a status already on the page (by id, uri, or reblogged original), only posts
 *   whose authors consent (src/mastodon/timeline-consent.ts), sensitive ones only for users whose
 *   `allow_sensitive` preference is on (their ranking), each with `is_recommendation: true`
 *   and `recommendation_metadata`, and their own `created_at`; rendered from the store with
 *   every field a Mastodon 4.5 instance sends (the posts service's rendering, completed by
 *   src/mastodon/entities.ts), their JSON the status cache's.
 * - The instance unusable (503 from the client): the page comes from the service's own
 *   store (recommendations, else recent stored posts), marked degraded. A token the
 *   instance refuses stays a 401 (the client's typed error goes through).
 * - The token could not even be verified because the instance is down (server/platform/plugins/auth.ts,
 *   `identityOutage: 'degrade'`): `fromStore` answers without asking the instance, with the
 *   user's recommendations when the token's last verified identity is known
 *   (`instance-unavailable`), else recent stored posts for nobody in particular
 *   (`instance-unavailable-unverified`).
 *
 * A page read again (clients refresh; several clients of one user) repeats only what changed:
 * the instance's bytes are parsed and serialised once while unchanged (./instance-pages.ts), a
 * status is written to the store again only when its JSON changed (./stored-statuses.ts), and
 * the user's recommendations are ranked once per window and then taken further down the same
 * cached list (./recommendation-window.ts). Storing stays before the reply: it is not a write
 * the user asked for, but a page answered then means its new statuses are stored, and an
 * unchanged page writes nothing, so only new or changed statuses cost the reply anything.
 */
import type { FastifyBaseLogger } from 'fastify';
import { DEFAULT_INJECTION_RATIO, planSeamlessInsertions } from '../../src/ranking/index.js';
import type { StatusInput } from '../../src/schemas/post.schema.js';
import { jsonArrayBytes, type JsonPiece } from '../platform/http/json-array-bytes.js';
import { isStorableStatus, type PostService } from '../posts/post.service.js';
import type { Recommendation, RecommendationService } from '../recommendations/recommendation.service.js';
import { InstanceUnavailableError, type InstanceAddress, type InstanceClient } from '../platform/social/social.service.js';
import { RecommendationWindows } from './recommendation-window.js';
import { injectedStatus, storedStatusConsents, storedStatusConsentsForAnyone, type InjectedStatus } from './recommended-statuses.js';
import { ShownMemory } from './shown-memory.js';
import { PreferenceRatios, type RatioSource, type UserVersions } from './preference-ratios.js';
import { InstancePages, type ParsedPage, type UpstreamStatus } from './instance-pages.js';
import { StoredStatuses } from './stored-statuses.js';
import { InstanceQuota } from './instance-quota.js';
import { idsNeeded, readerStatus } from './reader-statuses.js';
import { fitsTimeline, queryFlag, type TimelineFilter } from './timeline-fit.js';
import { FollowedAccounts } from './followed-accounts.js';
import type { Status } from '../../src/schemas/post.schema.js';
import { StatusResolver } from './status-resolver.js';
import { PageKeys, type StatusJson } from '../../src/mastodon/timeline-consent.js';
import { sortKeyOf } from '../../src/post-ids.js';
import {
  boostJson,
  createdAtMs,
  DEFAULT_RECOMMENDATION_STYLE,
  insertionTimeMs,
  type BoostContext,
  type RecommendationStyle,
} from './recommendation-boosts.js';

export { SHOWN_MEMORY_PER_USER, SHOWN_MEMORY_USERS } from './shown-memory.js';

/** The share of the page for users whose engagement rate is above ENGAGED_THRESHOLD. */
export const ENGAGED_INJECTION_RATIO = 0.4;
export const ENGAGED_THRESHOLD = 0.7;
/** Mastodon's default and largest page. */
export const DEFAULT_TIMELINE_LIMIT = 20;
export const MAX_TIMELINE_LIMIT = 40;

export type TimelineKind = { kind: 'home' } | { kind: 'public' } | { kind: 'tag'; hashtag: string };

/** Mastodon's query parameters the service forwards. */
export interface TimelineQuery {
  max_id?: string | undefined;
  since_id?: string | undefined;
  min_id?: string | undefined;
  limit?: number | undefined;
  local?: string | undefined;
  remote?: string | undefined;
  only_media?: string | undefined;
}

/** Why a page came from the service's store (the X-Recsvc-Degraded header's value). */
export type DegradedReason = 'instance-unavailable' | 'instance-unavailable-unverified';

/** A page asked for while the instance is down: the user when their token's last identity is known, else null. */
export interface StoreTimelineRequest {
  readonly timeline: TimelineKind;
  readonly query: TimelineQuery;
  readonly userId: string | null;
  /** The reader's instance, when known: statuses are then served with its ids, and only those it has ids for. */
  readonly reader?: Reader;
}

export interface TimelineRequest {
  readonly timeline: TimelineKind;
  readonly query: TimelineQuery;
  readonly userId: string;
  readonly token: string;
  readonly instance: InstanceAddress;
  /** The service's public origin: the account that boosts recommendations lives there (./recommendation-boosts.ts). */
  readonly serviceOrigin?: string;
}

/** One upstream Link relation: its page's query (max_id / min_id from the instance). */
export interface UpstreamLink {
  readonly rel: 'next' | 'prev';
  readonly query: URLSearchParams;
}

export interface TimelinePage {
  /** The ids of the page's statuses, in order. */
  readonly ids: string[];
  /**
   * The blended page serialised: the response body, as UTF-8 bytes. Concatenated from bytes
   * kept per status, so a reply never measures or encodes one long string (which cost more
   * than all the blending when a page holds non-ASCII text).
   */
  readonly body: Buffer;
  /** The instance's Link relations (empty when degraded or absent). */
  readonly links: UpstreamLink[];
  /** Upstream X-RateLimit-* headers to pass on. */
  readonly rateLimitHeaders: Record<string, string>;
  /** Set when the page came from the service's store because the instance failed. */
  readonly degraded?: DegradedReason;
  /** How many of the page's statuses are stored as candidates (written now, or stored unchanged before). */
  readonly stored: number;
  /** How many of them were written by this page (new or changed since stored). */
  readonly written: number;
}

/** The instance's answer to an anonymous timeline request. */
export interface AnonymousPage {
  readonly status: number;
  /** Content-Type, Cache-Control and X-RateLimit-* as the instance sent them. */
  readonly headers: Record<string, string>;
  readonly links: UpstreamLink[];
  readonly body: Buffer;
}

export interface TimelineDeps {
  readonly client: InstanceClient;
  readonly posts: PostService;
  readonly recommendations: RecommendationService;
  /** The user's recommendation_ratio preference (FeedbackService); null/undefined: none. */
  readonly preferences?: RatioSource;
  /**
   * The ranking state's user versions: with them the ratio is read once per user while their
   * signals are unchanged (./preference-ratios.ts); without, on every page.
   */
  readonly ranking?: UserVersions;
  /**
   * The user's engagement rate in [0, 1] (interactions per served recommendation), when a
   * source exists; undefined: unknown, and the default ratio applies.
   */
  readonly engagementRate?: (userId: string) => Promise<number | undefined>;
  /** Told the ids of the recommendations injected into each page sent (feeds the engagement rate). */
  readonly onInjected?: (userId: string, postIds: readonly string[]) => void;
  /** New posts one instance's pages may add per hour (./instance-quota.ts). */
  readonly newPostsPerHour?: number;
  /** How recommendations are woven in: boosts by a service account (the default) or the statuses themselves. */
  readonly recommendationStyle?: RecommendationStyle;
  /** Told how many recommendations each page sent to a reader of `instance` carried (the per-instance metric). */
  readonly onInjectedAt?: (instance: string, count: number) => void;
  readonly log?: FastifyBaseLogger;
}

/** Who a page is for: the reader's instance and token (the resolver asks that instance with it). */
export interface Reader {
  readonly instance: InstanceAddress;
  readonly token: string;
  /** The timeline's rule for what belongs on it (./timeline-fit.ts); absent: anything. */
  readonly fits?: (status: Status) => boolean;
  /** The home timeline: the accounts the reader follows are left out (./followed-accounts.ts). */
  readonly home?: boolean;
  /** The service's public origin, for the boosts' service account. */
  readonly serviceOrigin?: string;
}

/** The reader of a timeline page, with the rule of that timeline. */
function readerOf(request: Pick<TimelineRequest, 'timeline' | 'query' | 'instance' | 'token' | 'serviceOrigin'>): Reader {
  const { timeline, query } = request;
  const filter: TimelineFilter =
    timeline.kind === 'home'
      ? {}
      : {
          ...(timeline.kind === 'tag' ? { tag: timeline.hashtag } : {}),
          local: queryFlag(query.local),
          remote: queryFlag(query.remote),
          onlyMedia: queryFlag(query.only_media),
        };
  return {
    instance: request.instance,
    token: request.token,
    fits: fitsTimeline(filter, request.instance.host),
    home: timeline.kind === 'home',
    ...(request.serviceOrigin === undefined ? {} : { serviceOrigin: request.serviceOrigin }),
  };
}

function instancePath(timeline: TimelineKind): string {
  switch (timeline.kind) {
    case 'home':
      return '/api/v1/timelines/home';
    case 'public':
      return '/api/v1/timelines/public';
    case 'tag':
      return `/api/v1/timelines/tag/${encodeURIComponent(timeline.hashtag)}`;
  }
}

/** Parses `<url>; rel="next", <url>; rel="prev"` into each relation's query. */
export function parseUpstreamLinks(header: string | undefined): UpstreamLink[] {
  if (header === undefined) return [];
  const links: UpstreamLink[] = [];
  for (const match of header.matchAll(/<([^>]*)>\s*;\s*rel="?([a-z]+)"?/gi)) {
    const rel = match[2]?.toLowerCase();
    if (rel !== 'next' && rel !== 'prev') continue;
    try {
      links.push({ rel, query: new URL(match[1] ?? '').searchParams });
    } catch {
      // A relation whose URL does not parse is left out.
    }
  }
  return links;
}

export class TimelineService {
  /**
   * What each user was recently shown (real and injected ids), so that a recommendation is
   * never a status the user just saw, and walking `next` pages never repeats one.
   */
  private readonly shown = new ShownMemory();
  /** The statuses pages stored lately, as what: an unchanged status is not written again. */
  private readonly storedStatuses = new StoredStatuses();
  /** Instance pages parsed lately, by their bytes. */
  private readonly instancePages = new InstancePages();
  private readonly windows: RecommendationWindows;
  private readonly ratios: RatioSource | undefined;
  private readonly quota: InstanceQuota;
  /** Looks up, at a reader's instance, its ids of recommendations it has not shown the service. */
  readonly resolver: StatusResolver;
  private readonly followed: FollowedAccounts;

  constructor(private readonly deps: TimelineDeps) {
    this.windows = new RecommendationWindows(deps.recommendations);
    this.quota = new InstanceQuota(deps.newPostsPerHour);
    this.followed = new FollowedAccounts(deps.client);
    this.resolver = new StatusResolver({
      client: deps.client,
      store: (instance, statuses) => deps.posts.ingestFromInstance(instance, statuses, { maxNew: this.quota.available(instance) }),
      ...(deps.log ? { log: deps.log } : {}),
    });
    const source = deps.preferences;
    this.ratios = source && deps.ranking ? new PreferenceRatios(source, deps.ranking) : source;
  }

  async page(request: TimelineRequest): Promise<TimelinePage> {
    const limit = limitOf(request.query);
    let response;
    try {
      response = await this.deps.client.requestRaw(request.instance, {
        path: instancePath(request.timeline),
        query: { ...request.query, limit },
        token: request.token,
      });
    } catch (error) {
      if (error instanceof InstanceUnavailableError) return this.degraded(request, limit, readerOf(request));
      throw error;
    }
    let page;
    try {
      page = this.instancePages.parse(response.body);
    } catch {
      page = undefined; // not JSON: the instance is not usable, as for the client's own parsing
    }
    if (page === undefined) return this.degraded(request, limit, readerOf(request));
    // A Mastodon page holds at most `limit` statuses: an instance sending more has the rest ignored, not stored.
    const { stored, written } = await this.store(request.instance.host, page.statuses.slice(0, limit));
    const { ids, body } = await this.blend(request.userId, page, readerOf(request));
    const rateLimitHeaders: Record<string, string> = {};
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const) {
      const value = response.headers[name];
      if (value !== undefined) rateLimitHeaders[name] = value;
    }
    return { ids, body, links: parseUpstreamLinks(response.headers.link), rateLimitHeaders, stored, written };
  }

  /**
   * A timeline as the instance serves it to nobody in particular (drop-in mode's anonymous
   * readers, as Mastodon serves its public and tag timelines): the instance's answer, whatever
   * its status, with no token and nothing woven in (there is no reader to recommend to).
   */
  async anonymousPage(instance: InstanceAddress, timeline: TimelineKind, rawQuery: string): Promise<AnonymousPage> {
    const response = await this.deps.client.requestRaw(instance, {
      path: instancePath(timeline),
      ...(rawQuery === '' ? {} : { rawQuery }),
      accept: 'any',
      redirects: 'return',
    });
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'cache-control', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const) {
      const value = response.allHeaders[name];
      if (typeof value === 'string') headers[name] = value;
    }
    return { status: response.status, headers, links: parseUpstreamLinks(response.headers.link), body: response.body };
  }

  /**
   * Stores the consenting, well-formed statuses that are new or changed since a page stored
   * them (StoredStatuses); a storage failure never costs the user their page. Storing is not a
   * write the user asked for (nothing acknowledges it to them), but it is done before the
   * reply all the same, so that a page answered means its statuses are stored; re-read pages
   * store nothing, so only new or changed statuses cost the reply anything.
   */
  private async store(instance: string, upstream: readonly UpstreamStatus[]): Promise<{ stored: number; written: number }> {
    let stored = 0;
    const changed: { status: StatusJson; key: string; fingerprint: string }[] = [];
    for (const { status, fingerprint, consents } of upstream) {
      if (!consents) continue;
      // The instance's id names the status only on that instance.
      const key = typeof status.id === 'string' && status.id !== '' ? `${instance} ${status.id}` : '';
      if (key !== '' && this.storedStatuses.isStored(key, fingerprint)) stored++;
      else if (isStorableStatus(status)) changed.push({ status, key, fingerprint });
    }
    if (changed.length === 0) return { stored, written: 0 };
    for (const { key, fingerprint } of changed) if (key !== '') this.storedStatuses.storing(key, fingerprint);
    try {
      const { ids, created } = await this.deps.posts.ingestFromInstance(
        instance,
        changed.map(({ status }) => status) as unknown as StatusInput[],
        { maxNew: this.quota.available(instance) },
      );
      this.quota.spend(instance, created);
      // A status over the instance's quota was not stored: the next page showing it tries again.
      ids.forEach((id, i) => {
        const { key, fingerprint } = changed[i]!;
        if (id === undefined && key !== '') this.storedStatuses.failed(key, fingerprint);
      });
      const kept = ids.filter((id) => id !== undefined).length;
      return { stored: stored + kept, written: kept };
    } catch (error) {
      for (const { key, fingerprint } of changed) this.storedStatuses.failed(key, fingerprint);
      this.deps.log?.warn({ err: error }, 'timeline statuses could not be stored as candidates');
      return { stored, written: 0 };
    }
  }

  /** The user's share of recommendations. */
  async ratioFor(userId: string): Promise<number> {
    const preferred = await this.ratios?.recommendationRatio(userId);
    if (preferred !== null && preferred !== undefined) return preferred;
    const engagement = await this.deps.engagementRate?.(userId);
    return engagement !== undefined && engagement > ENGAGED_THRESHOLD ? ENGAGED_INJECTION_RATIO : DEFAULT_INJECTION_RATIO;
  }

  /**
   * Recommendations for the user that consent and are not on the page, best first (at most
   * `count`), with their JSON. Sensitive posts come only to users who allow them: their ranking
   * leaves them out for everyone else.
   */
  private async candidates(
    userId: string,
    keys: PageKeys,
    count: number,
    reader?: Reader,
    oldestOnPage?: string,
  ): Promise<InjectedStatus[]> {
    if (count <= 0) return [];
    const shown = this.shown.of(userId);
    const ranked = await this.windows.recommend(userId, keys.ids, shown, count + 10);
    const chosen: Recommendation[] = [];
    for (const recommendation of ranked) {
      const post = recommendation.status;
      if (keys.has(post) || shown.has(post.id) || shown.has(`uri:${post.uri}`) || !storedStatusConsents(post)) continue;
      if (reader?.fits && !reader.fits(post)) continue;
      chosen.push(recommendation);
    }
    if (chosen.length === 0) return [];
    if (reader !== undefined) return this.forReader(userId, chosen, keys, count, reader, oldestOnPage);
    const used = chosen.slice(0, count);
    for (const recommendation of used) keys.add(recommendation.status);
    const prefixes = await this.deps.posts.statusJsonPrefixes(used.map((recommendation) => recommendation.status.id));
    return used.flatMap((recommendation) => {
      const prefix = prefixes.get(recommendation.status.id);
      return prefix === undefined ? [] : [injectedStatus(recommendation, prefix)];
    });
  }

  /**
   * The first `count` of `chosen` that the reader's instance has ids for, as that instance's
   * reader sees them (./reader-statuses.ts); the others are handed to the resolver. On a public
   * or tag timeline (`fits`), a status that belongs on it with an id below the page's oldest
   * (`oldestOnPage`, the instance's ids) is left out: the instance shows it itself on a later
   * page of the same walk (Mastodon pages these timelines by id), and it would come twice.
   */
  private async forReader(
    userId: string,
    chosen: readonly Recommendation[],
    keys: PageKeys,
    count: number,
    reader: Reader,
    oldestOnPage?: string,
  ): Promise<InjectedStatus[]> {
    const needed = chosen.map((recommendation) => idsNeeded(recommendation.status));
    const ids = await this.deps.posts.localIds(
      reader.instance.host,
      needed.flatMap((n) => n.posts),
      needed.flatMap((n) => n.accounts),
    );
    const followed = reader.home
      ? await this.followed.followedOf(
          `${reader.instance.host} ${userId}`,
          reader.instance,
          reader.token,
          chosen.flatMap((recommendation) => ids.accounts.get(recommendation.status.account.id) ?? []),
        )
      : undefined;
    const out: InjectedStatus[] = [];
    for (const recommendation of chosen) {
      if (out.length >= count) break;
      const author = ids.accounts.get(recommendation.status.account.id);
      if (author !== undefined && followed?.has(author)) continue;
      const local = readerStatus(recommendation.status, reader.instance.host, ids);
      if (local === undefined) {
        this.resolver.resolve(reader.instance, reader.token, (recommendation.status.reblog ?? recommendation.status).uri);
        continue;
      }
      if (comesLater(local, reader, oldestOnPage)) continue;
      keys.add(recommendation.status);
      out.push(injectedStatus(recommendation, JSON.stringify(local).slice(0, -1)));
    }
    return out;
  }

  /** The user was sent these ids (real and injected): never injected while remembered. */
  private remember(userId: string, keys: PageKeys): void {
    const ids = keys.ids;
    // By uri too: a status on the reader's page has the reader's instance's id, its stored post the service's.
    this.shown.remember(userId, [...ids, ...keys.uris]);
    this.windows.shown(userId, ids);
  }

  /** The page with recommendations at their insertion points: its ids and JSON bytes. */
  private async blend(userId: string, page: ParsedPage, reader: Reader): Promise<{ ids: string[]; body: Buffer }> {
    const upstream = page.statuses;
    const length = upstream.length;
    const ratio = await this.ratioFor(userId);
    const wanted = planSeamlessInsertions(length, length, length, ratio).length;
    const keys = page.keys.copy();
    if (reader.home) {
      const authors = upstream.flatMap(({ status }) => {
        const account = status.account as { id?: unknown } | undefined;
        return typeof account?.id === 'string' ? [account.id] : [];
      });
      this.followed.learnFromHome(`${reader.instance.host} ${userId}`, authors);
    }
    const injected = await this.candidates(userId, keys, wanted, reader, oldestIdOf(upstream));
    const points = planSeamlessInsertions(length, injected.length, wanted, ratio);
    this.remember(userId, keys);
    const used = injected.slice(0, points.length);
    this.deps.onInjected?.(
      userId,
      used.map((item) => item.status.id),
    );
    if (used.length > 0) this.deps.onInjectedAt?.(reader.instance.host, used.length);
    const boosts = this.boostContext(userId, reader);
    const ids: string[] = [];
    const parts: JsonPiece[][] = [];
    let next = 0;
    for (let i = 0; i <= length; i++) {
      while (next < points.length && points[next] === i) {
        const item = injected[next];
        if (item) {
          ids.push(item.status.id);
          parts.push([boosts ? boosted(item, upstream, i, boosts) : item.json]);
        }
        next++;
      }
      const status = upstream[i];
      if (status) {
        ids.push(String(status.status.id));
        parts.push([status.realBytes]);
      }
    }
    return { ids, body: jsonArrayBytes(parts) };
  }

  /** Where recommendations go in as boosts: the boosts' context; undefined where they go in as themselves. */
  private boostContext(userId: string, reader: Reader): BoostContext | undefined {
    if ((this.deps.recommendationStyle ?? DEFAULT_RECOMMENDATION_STYLE) !== 'boost' || reader.serviceOrigin === undefined) return undefined;
    return { serviceOrigin: reader.serviceOrigin, instanceOrigin: reader.instance.origin, userId };
  }

  /** A page from the store alone, the instance not asked (its token could not be verified: it is down). */
  async fromStore(request: StoreTimelineRequest): Promise<TimelinePage> {
    const limit = limitOf(request.query);
    const reader = request.reader === undefined ? undefined : readerOf({ ...request, ...request.reader });
    if (request.userId !== null) return this.degraded({ ...request, userId: request.userId }, limit, reader);
    return storePage(await this.recentStored(request.timeline, limit, reader), 'instance-unavailable-unverified');
  }

  /** The page from the service's own store: recommendations, else recent stored posts. */
  private async degraded(request: Pick<TimelineRequest, 'timeline' | 'userId'>, limit: number, reader?: Reader): Promise<TimelinePage> {
    const keys = new PageKeys([]);
    let page: InjectedStatus[] = await this.candidates(request.userId, keys, limit, reader);
    this.remember(request.userId, keys);
    if (page.length === 0) page = await this.recentStored(request.timeline, limit, reader);
    return storePage(page, 'instance-unavailable');
  }

  /**
   * Recent stored posts whose authors consent (for the tag's timeline, with the tag): for nobody
   * in particular, so never sensitive ones (no preference allows them).
   */
  private async recentStored(timeline: TimelineKind, limit: number, reader?: Reader): Promise<InjectedStatus[]> {
    const recent = (await this.deps.posts.list({ limit, ...(timeline.kind === 'tag' ? { tag: timeline.hashtag } : {}) })).filter((status) =>
      storedStatusConsentsForAnyone(status),
    );
    if (reader === undefined) return recent.map((status) => ({ status, json: JSON.stringify({ ...status, is_recommendation: false }) }));
    const needed = recent.map(idsNeeded);
    const ids = await this.deps.posts.localIds(
      reader.instance.host,
      needed.flatMap((n) => n.posts),
      needed.flatMap((n) => n.accounts),
    );
    return recent.flatMap((status) => {
      const local = readerStatus(status, reader.instance.host, ids);
      return local === undefined ? [] : [{ status, json: JSON.stringify({ ...local, is_recommendation: false }) }];
    });
  }
}

/** The recommendation inserted before `upstream[at]` as a boost dated between its neighbours. */
function boosted(item: InjectedStatus, upstream: readonly UpstreamStatus[], at: number, context: BoostContext): string {
  const newer = upstream[at - 1];
  const older = upstream[at];
  const fallback = createdAtMs(item.status) ?? Date.now();
  const atMs = insertionTimeMs(newer && createdAtMs(newer.status), older && createdAtMs(older.status), fallback);
  const metadata = item.metadata ?? { reason_code: 'GENERIC', reason_string: 'Recommended for you', score: 0 };
  return boostJson({ json: item.json, uri: item.status.uri, reasonCode: metadata.reason_code, metadata }, atMs, context);
}

/** A page from the service's store, flagged with why. */
function storePage(page: readonly InjectedStatus[], degraded: DegradedReason): TimelinePage {
  const ids = page.map((item) => item.status.id);
  const body = jsonArrayBytes(page.map((item) => [item.json]));
  return { ids, body, links: [], rateLimitHeaders: {}, degraded, stored: 0, written: 0 };
}

function limitOf(query: TimelineQuery): number {
  return Math.min(MAX_TIMELINE_LIMIT, Math.max(1, query.limit ?? DEFAULT_TIMELINE_LIMIT));
}

/** The smallest id (by Mastodon's order) of a page's statuses, as the instance sent them. */
function oldestIdOf(statuses: readonly UpstreamStatus[]): string | undefined {
  let oldest: string | undefined;
  for (const { status } of statuses) {
    const id = (status as { id?: unknown }).id;
    if (typeof id === 'string' && (oldest === undefined || sortKeyOf(id) < sortKeyOf(oldest))) oldest = id;
  }
  return oldest;
}

/** Whether the instance itself shows `local` on a later page of this (public or tag) timeline: then it is not woven in. */
function comesLater(local: { id?: unknown }, reader: Reader, oldestOnPage: string | undefined): boolean {
  if (reader.home === true || reader.fits === undefined || oldestOnPage === undefined || typeof local.id !== 'string') return false;
  return sortKeyOf(local.id) < sortKeyOf(oldestOnPage);
}

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
 *   whose authors consent (./timeline-consent.ts), each with `is_recommendation: true`
 *   and `recommendation_metadata`, and their own `created_at`; rendered from the store with
 *   every field a Mastodon 4.5 instance sends (src/mastodon/entities.ts, completeStatus).
 * - The instance unusable (503 from the client): the page comes from the service's own
 *   store (recommendations, else recent stored posts), marked degraded. A token the
 *   instance refuses stays a 401 (the client's typed error goes through).
 * - The token could not even be verified because the instance is down (server/plugins/auth.ts,
 *   `identityOutage: 'degrade'`): `fromStore` answers without asking the instance, with the
 *   user's recommendations when the token's last verified identity is known
 *   (`instance-unavailable`), else recent stored posts for nobody in particular
 *   (`instance-unavailable-unverified`).
 */
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import { completeStatus } from '../../src/mastodon/entities.js';
import { DEFAULT_INJECTION_RATIO, planSeamlessInsertions } from '../../src/ranking/index.js';
import { StatusInputSchema, type StatusInput } from '../../src/schemas/post.schema.js';
import { findJsonBoundsViolation, STATUS_BOUNDS } from '../../src/schemas/bounded-json.js';
import type { PostService } from '../posts/post.service.js';
import { validatorCompiler } from '../plugins/validator.js';
import { toRecommendedPost, type RecommendationService } from '../recommendations/recommendation.service.js';
import { InstanceUnavailableError, type InstanceAddress, type InstanceClient } from '../social/social.service.js';
import { consentsToDiscovery, PageKeys, type ConsentOptions, type StatusJson } from './timeline-consent.js';

/** The share of the page for users whose engagement rate is above ENGAGED_THRESHOLD. */
export const ENGAGED_INJECTION_RATIO = 0.4;
export const ENGAGED_THRESHOLD = 0.7;
/** Mastodon's default and largest page. */
export const DEFAULT_TIMELINE_LIMIT = 20;
export const MAX_TIMELINE_LIMIT = 40;
/** Statuses remembered per user as recently shown (never injected again while remembered). */
export const SHOWN_MEMORY_PER_USER = 1_000;
/** Users whose recently shown statuses are remembered (least recently active forgotten first). */
export const SHOWN_MEMORY_USERS = 10_000;

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
}

export interface TimelineRequest {
  readonly timeline: TimelineKind;
  readonly query: TimelineQuery;
  readonly userId: string;
  readonly token: string;
  readonly instance: InstanceAddress;
}

/** One upstream Link relation: its page's query (max_id / min_id from the instance). */
export interface UpstreamLink {
  readonly rel: 'next' | 'prev';
  readonly query: URLSearchParams;
}

export interface TimelinePage {
  /** The blended page, in order. */
  readonly statuses: StatusJson[];
  /** The instance's Link relations (empty when degraded or absent). */
  readonly links: UpstreamLink[];
  /** Upstream X-RateLimit-* headers to pass on. */
  readonly rateLimitHeaders: Record<string, string>;
  /** Set when the page came from the service's store because the instance failed. */
  readonly degraded?: DegradedReason;
  /** How many of the page's statuses were stored as candidates. */
  readonly stored: number;
}

export interface TimelineDeps {
  readonly client: InstanceClient;
  readonly posts: PostService;
  readonly recommendations: RecommendationService;
  /** The user's recommendation_ratio preference (FeedbackService); null/undefined: none. */
  readonly preferences?: { recommendationRatio(userId: string): Promise<number | null> };
  /**
   * The user's engagement rate in [0, 1] (interactions per served recommendation), when a
   * source exists; undefined: unknown, and the default ratio applies.
   */
  readonly engagementRate?: (userId: string) => Promise<number | undefined>;
  /** Told the ids of the recommendations injected into each page sent (feeds the engagement rate). */
  readonly onInjected?: (userId: string, postIds: readonly string[]) => void;
  readonly log?: FastifyBaseLogger;
}

const checkStatusInput = validatorCompiler({ schema: StatusInputSchema, httpPart: 'body', method: 'POST', url: '/' }) as (
  value: unknown,
) => boolean | { error?: unknown };

/**
 * Whether a status an instance sent may be stored as a candidate post: its authors consent
 * to discovery, it is not sensitive, and it fits the stored shape and bounds (the rule the
 * timelines apply, shared with the proxy's interaction logging).
 */
export function mayStoreStatus(status: Record<string, unknown>): boolean {
  return consentsToDiscovery(status, { allowSensitive: false }) && isStorable(status);
}

function isStorable(status: StatusJson): boolean {
  const verdict = checkStatusInput(status);
  const valid = typeof verdict === 'boolean' ? verdict : verdict.error === undefined;
  return valid && findJsonBoundsViolation(status, STATUS_BOUNDS) === undefined;
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
  private readonly consent: ConsentOptions = { allowSensitive: false };
  /**
   * What each user was recently shown (real and injected ids), so that a recommendation is
   * never a status the user just saw, and walking `next` pages never repeats one. In memory,
   * bounded per user and in users; forgetting only means an older status may be injected again.
   */
  private readonly shown = new LRUCache<string, string[]>({ max: SHOWN_MEMORY_USERS, ttl: 6 * 3_600_000 });

  constructor(private readonly deps: TimelineDeps) {}

  async page(request: TimelineRequest): Promise<TimelinePage> {
    const limit = limitOf(request.query);
    let response;
    try {
      response = await this.deps.client.request<unknown>(request.instance, {
        path: instancePath(request.timeline),
        query: { ...request.query, limit },
        token: request.token,
      });
    } catch (error) {
      if (error instanceof InstanceUnavailableError) return this.degraded(request, limit);
      throw error;
    }
    if (!Array.isArray(response.body)) {
      return this.degraded(request, limit);
    }
    const upstream = response.body.filter((item): item is StatusJson => typeof item === 'object' && item !== null && !Array.isArray(item));
    const stored = await this.store(upstream);
    const statuses = await this.blend(request.userId, upstream);
    const rateLimitHeaders: Record<string, string> = {};
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const) {
      const value = response.headers[name];
      if (value !== undefined) rateLimitHeaders[name] = value;
    }
    return { statuses, links: parseUpstreamLinks(response.headers.link), rateLimitHeaders, stored };
  }

  /** Stores the consenting, well-formed statuses; a storage failure never costs the user their page. */
  private async store(statuses: readonly StatusJson[]): Promise<number> {
    const storable = statuses.filter((status) => consentsToDiscovery(status, this.consent) && isStorable(status));
    if (storable.length === 0) return 0;
    try {
      await this.deps.posts.ingest(storable as unknown as StatusInput[]);
      return storable.length;
    } catch (error) {
      this.deps.log?.warn({ err: error }, 'timeline statuses could not be stored as candidates');
      return 0;
    }
  }

  /** The user's share of recommendations. */
  async ratioFor(userId: string): Promise<number> {
    const preferred = await this.deps.preferences?.recommendationRatio(userId);
    if (preferred !== null && preferred !== undefined) return preferred;
    const engagement = await this.deps.engagementRate?.(userId);
    return engagement !== undefined && engagement > ENGAGED_THRESHOLD ? ENGAGED_INJECTION_RATIO : DEFAULT_INJECTION_RATIO;
  }

  /** Recommendations for the user that consent and are not on the page, best first (at most `count`). */
  private async candidates(userId: string, keys: PageKeys, count: number): Promise<StatusJson[]> {
    if (count <= 0) return [];
    const shown = this.shown.get(userId) ?? [];
    const ranked = await this.deps.recommendations.recommend(userId, { limit: count + 10, excludeIds: [...keys.ids, ...shown] });
    const recent = new Set(shown);
    const out: StatusJson[] = [];
    for (const recommendation of ranked) {
      if (out.length >= count) break;
      const post: StatusJson = completeStatus(toRecommendedPost(recommendation));
      if (keys.has(post) || recent.has(String(post.id)) || !consentsToDiscovery(post, this.consent)) continue;
      keys.add(post);
      out.push(post);
    }
    return out;
  }

  private remember(userId: string, ids: readonly string[]): void {
    const list = [...(this.shown.get(userId) ?? []), ...ids];
    this.shown.set(userId, list.length > SHOWN_MEMORY_PER_USER ? list.slice(list.length - SHOWN_MEMORY_PER_USER) : list);
  }

  /** The page with recommendations at their insertion points. */
  private async blend(userId: string, upstream: readonly StatusJson[]): Promise<StatusJson[]> {
    const real = upstream.map((status) => ({ ...status, is_recommendation: false }));
    const length = real.length;
    const ratio = await this.ratioFor(userId);
    const wanted = planSeamlessInsertions(length, length, length, ratio).length;
    const keys = new PageKeys(upstream);
    const injected = await this.candidates(userId, keys, wanted);
    const points = planSeamlessInsertions(length, injected.length, wanted, ratio);
    this.remember(userId, keys.ids);
    const used = injected.slice(0, points.length);
    this.deps.onInjected?.(
      userId,
      used.map((status) => String(status.id)),
    );
    const out: StatusJson[] = [];
    let next = 0;
    for (let i = 0; i <= length; i++) {
      while (next < points.length && points[next] === i) {
        const item = injected[next];
        if (item) out.push(item);
        next++;
      }
      const status = real[i];
      if (status) out.push(status);
    }
    return out;
  }

  /** A page from the store alone, the instance not asked (its token could not be verified: it is down). */
  async fromStore(request: StoreTimelineRequest): Promise<TimelinePage> {
    const limit = limitOf(request.query);
    if (request.userId !== null) return this.degraded({ ...request, userId: request.userId }, limit);
    const statuses = await this.recentStored(request.timeline, limit);
    return { statuses, links: [], rateLimitHeaders: {}, degraded: 'instance-unavailable-unverified', stored: 0 };
  }

  /** The page from the service's own store: recommendations, else recent stored posts. */
  private async degraded(request: Pick<TimelineRequest, 'timeline' | 'userId'>, limit: number): Promise<TimelinePage> {
    const keys = new PageKeys([]);
    let statuses = await this.candidates(request.userId, keys, limit);
    this.remember(request.userId, keys.ids);
    if (statuses.length === 0) statuses = await this.recentStored(request.timeline, limit);
    return { statuses, links: [], rateLimitHeaders: {}, degraded: 'instance-unavailable', stored: 0 };
  }

  /** Recent stored posts whose authors consent (for the tag's timeline, with the tag): for nobody in particular. */
  private async recentStored(timeline: TimelineKind, limit: number): Promise<StatusJson[]> {
    const recent = await this.deps.posts.list({ limit, ...(timeline.kind === 'tag' ? { tag: timeline.hashtag } : {}) });
    return (recent as unknown as StatusJson[])
      .filter((status) => consentsToDiscovery(status, this.consent))
      .map((status) => ({ ...completeStatus(status), is_recommendation: false }));
  }
}

function limitOf(query: TimelineQuery): number {
  return Math.min(MAX_TIMELINE_LIMIT, Math.max(1, query.limit ?? DEFAULT_TIMELINE_LIMIT));
}

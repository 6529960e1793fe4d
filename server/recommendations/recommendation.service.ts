/**
 * Recommendations: asks the ranking policy which config ranks the user, serves a cached
 * list or ranks the in-memory pool with the user's profile, renders the posts as
 * Mastodon statuses with the ranking fields, and reports timing to metrics and policy.
 * A list pages by rank: each page's `next` cursor (RecommendationCursor) names what was
 * served, so a paginator walks the whole ranked list without repeats.
 */
import { rankCandidates, type AlgorithmConfig, type RankedItem } from '../../src/ranking/index.js';
import { interleaveRanked, teamOf } from '../../src/experiments/interleaving/interleave-ranked.js';
import { ValidationError } from '../../src/errors.js';
import type { Status } from '../../src/schemas/post.schema.js';
import { MAX_EXCLUDE_IDS, type RecommendedPost } from '../../src/schemas/recommendation.schema.js';
import { jsonArrayBytes } from '../platform/http/json-array-bytes.js';
import { decodeBody, encodeBody, type BodyEncoding } from '../platform/http/content-encoding.js';
import type { ServiceMetrics } from '../platform/metrics/service-metrics.js';
import { sortKeyOf } from '../../src/post-ids.js';
import type { PostService } from '../posts/post.service.js';
import type { RankingState } from '../ranking-state/ranking-state.service.js';
import { loadProfile, type ProfileSources } from './profile-loader.js';
import { prepareCollaborative, weighsCollaborative } from './collaborative-preparation.js';
import type { RankingChoice, RankingPolicy, ServedList } from './ranking-policy.types.js';

export interface RecommendOptions {
  limit: number;
  excludeIds?: readonly string[];
  maxId?: string;
  sinceId?: string;
  /** Like `sinceId` for a ranked list: only posts newer than this id (Mastodon's rel="prev"). */
  minId?: string;
  /** Continue a ranked list after this position (from the previous page's `next`). */
  after?: RecommendationCursor;
}

/**
 * Where a paged list stands: the instant it was ranked at (later pages rank at the same
 * instant, so recency does not reorder them) and a 32-bit hash of every post served so
 * far, which later pages leave out, so that no post comes twice even when the ranking
 * moved between pages (the user liked a post, new posts arrived).
 */
export interface RecommendationCursor {
  rankedAtMs: number;
  served: readonly number[];
}

/** What a served page's Link header needs: the newest post on it and, when the page is full, the next page's cursor. */
export interface RecommendationPageLinks {
  /** Largest post id on the page (for rel="prev": posts newer than it). */
  newestId: string | undefined;
  next: RecommendationCursor | undefined;
}

/** A served page: its items and its links. */
export interface RecommendationPage<T> extends RecommendationPageLinks {
  items: T[];
}

/** How deep a paged list goes: later pages rank this many posts at the cursor's instant, and no more are served. */
export const MAX_RECOMMENDATION_DEPTH = 400;
/** The longest cursor: a version byte, a 6-byte instant and 4 bytes per served post, in base64url. */
export const MAX_RECOMMENDATION_CURSOR_LENGTH = Math.ceil(((7 + 4 * MAX_RECOMMENDATION_DEPTH) * 4) / 3);
/** A cursor older than this (or from the future) is refused: its ranking would be stale. */
export const RECOMMENDATION_CURSOR_TTL_MS = 24 * 3_600_000;

/** A ranked item with its rendered status. */
export interface Recommendation {
  item: RankedItem;
  status: Status;
}

/** Comma-separated `exclude_ids` as a list; more than 200 is a 400 naming the field. */
export function parseExcludeIds(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  const ids = (typeof value === 'string' ? value.split(',') : value).map((id) => id.trim()).filter((id) => id.length > 0);
  if (ids.length > MAX_EXCLUDE_IDS) {
    throw new ValidationError(`exclude_ids accepts at most ${MAX_EXCLUDE_IDS} ids (got ${ids.length})`, 'exclude_ids');
  }
  return ids;
}

/** The opaque `cursor` parameter of a rel="next" link (binary, so that 400 served posts fit a URL). */
export function encodeRecommendationCursor(cursor: RecommendationCursor): string {
  const bytes = Buffer.alloc(7 + 4 * cursor.served.length);
  bytes.writeUInt8(CURSOR_VERSION, 0);
  bytes.writeUIntBE(cursor.rankedAtMs, 1, 6);
  cursor.served.forEach((hash, i) => bytes.writeUInt32BE(hash, 7 + 4 * i));
  return bytes.toString('base64url');
}

/** The cursor a `next` link carried; 400 naming `cursor` for anything this service did not write. */
export function parseRecommendationCursor(value: string | undefined): RecommendationCursor | undefined {
  if (value === undefined) return undefined;
  const bytes =
    /^[A-Za-z0-9_-]+$/.test(value) && value.length <= MAX_RECOMMENDATION_CURSOR_LENGTH ? Buffer.from(value, 'base64url') : Buffer.alloc(0);
  const count = (bytes.length - 7) / 4;
  if (bytes.length < 11 || !Number.isInteger(count) || bytes.readUInt8(0) !== CURSOR_VERSION || bytes.toString('base64url') !== value) {
    throw new ValidationError('cursor is not one this service wrote: follow the Link header\'s rel="next" as given', 'cursor');
  }
  const served = Array.from({ length: count }, (_, i) => bytes.readUInt32BE(7 + 4 * i));
  return { rankedAtMs: bytes.readUIntBE(1, 6), served };
}

/** FNV-1a, 32 bits: how a cursor names a served post (a collision only hides one post from the rest of that list). */
export function servedHash(postId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < postId.length; i++) hash = Math.imul(hash ^ postId.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

const CURSOR_VERSION = 1;

/**
 * A cached list's first page as it was sent (issue 27): a warm request for the same user, list
 * and limit is answered from it — bytes, Link header inputs and what the serving report needs —
 * when every status on it still serialises as it did (a count another user changed, or an edit,
 * replaces that status's cached JSON, and then the page is built again). It lives as long as its
 * list (kept by the ranking state in the list's entry, counted in the lists' byte bound:
 * RankingState.keepWithList): the user's signals, preference changes, a deleted post or the
 * list's expiry drop both. Its body is kept in the encodings it was asked in (`bodies`; gzip,
 * ~4.4 KB instead of ~45 KB, is what Mastodon clients ask for), another made on demand.
 */
export interface ServedFirstPage extends RecommendationPageLinks {
  bodies: Partial<Record<BodyEncoding, Buffer>>;
  readonly limit: number;
  /** The posts on the page, in order, and the status JSON each was written from. */
  readonly ids: readonly string[];
  readonly prefixes: readonly string[];
  /** The status cache's version when those were current (see StatusCache.version). */
  statusVersion: number;
  /** The serving report's items (experiments' impressions), built once. */
  readonly reported: ServedList['items'];
}

/** A page's body in the encoding a request asked for, and its links (the same object for each hit of a kept page). */
export interface EncodedPage {
  readonly links: RecommendationPageLinks;
  readonly body: Buffer;
  readonly encoding: BodyEncoding;
}

/** A kept page's bytes besides its body, per post: its id, the shared prefix's reference and its report item. */
const SENT_PAGE_ITEM_BYTES = 200;

export class RecommendationService {
  /** The instant each cached list was ranked at (a first page may come from a list ranked up to a TTL ago). */
  private readonly rankedAt = new WeakMap<RankedItem[], number>();
  /**
   * The cache-key text of each exclusion list passed again and again (a timeline's window
   * passes the same array on every page): joined once, and the same string each time, so its
   * hash is computed once too.
   */
  private readonly exclusionKeys = new WeakMap<readonly string[], string>();

  private readonly state: RankingState;
  private readonly posts: PostService;

  constructor(
    private readonly sources: ProfileSources,
    private readonly metrics: ServiceMetrics,
    private readonly policy: RankingPolicy,
  ) {
    this.state = sources.state;
    this.posts = sources.posts;
  }

  /** The user's ranked recommendations, best first. */
  async recommend(userId: string, options: RecommendOptions, nowMs = Date.now()): Promise<Recommendation[]> {
    const page = await this.serve(userId, options, nowMs, async (items) => {
      const statuses = await this.posts.statusesByIds(items.map((i) => i.post.id));
      return items.flatMap((item) => {
        const status = statuses.get(item.post.id);
        return status ? [{ item, status }] : [];
      });
    });
    return page.items;
  }

  /**
   * The same list as `recommend`, already serialised as the JSON array of recommended posts
   * (each post's status JSON is cached, so a response is written from the cached text and the
   * ranking's fields straight into its bytes), with what the Link header needs. A first page
   * of a cached list is the page sent before (ServedFirstPage) while its statuses are unchanged:
   * a warm request is then a lookup, a look at the status cache's version and the serving report.
   */
  async recommendJson(
    userId: string,
    options: RecommendOptions,
    encoding: BodyEncoding = 'identity',
    nowMs = Date.now(),
  ): Promise<EncodedPage> {
    if (options.after !== undefined) {
      const page = await this.serve(userId, options, nowMs, (items) => this.jsonItems(items));
      return { links: { newestId: page.newestId, next: page.next }, body: encodeBody(jsonBodyOf(page.items), encoding), encoding };
    }
    const started = performance.now();
    const choice = this.withFittedDefault(await this.policy.choose(userId));
    const key = this.listKey(choice, options, undefined);
    const cached = this.state.cachedList(userId, key, nowMs);
    const sent = cached === undefined ? undefined : (this.state.keptWithList(userId, key, cached) as ServedFirstPage | undefined);
    // A failed check (a status read from the database) ranks again below, where a failure is reported.
    if (cached !== undefined && sent !== undefined && sent.limit === options.limit && (await this.unchanged(sent).catch(() => false))) {
      this.metrics.recordCacheLookup('recommendations', true);
      await this.report(userId, choice, sent.reported, started, true, false);
      return { links: sent, body: this.bodyIn(userId, key, cached, sent, encoding), encoding };
    }
    let ranked: RankedItem[] | undefined;
    // Read before the statuses are: a change meanwhile leaves the page to be checked item by item.
    const statusVersion = this.state.statuses.version;
    const page = await this.serve(
      userId,
      options,
      nowMs,
      (items, list) => {
        ranked = list;
        return this.jsonItems(items);
      },
      { started, choice, key },
    );
    const items = page.items.map((o) => o.item);
    const body = encodeBody(jsonBodyOf(page.items), encoding);
    const built: ServedFirstPage = {
      newestId: page.newestId,
      next: page.next,
      bodies: { [encoding]: body },
      limit: options.limit,
      ids: items.map((item) => item.post.id),
      prefixes: page.items.map((o) => o.prefix),
      statusVersion,
      reported: reportedItems(items),
    };
    if (ranked !== undefined) this.keep(userId, key, ranked, built);
    return { links: built, body, encoding };
  }

  /** A kept page's body in `encoding`: kept already, or made from the form kept and kept beside it. */
  private bodyIn(userId: string, key: string, list: RankedItem[], page: ServedFirstPage, encoding: BodyEncoding): Buffer {
    const kept = page.bodies[encoding];
    if (kept !== undefined) return kept;
    const [from, bytes] = Object.entries(page.bodies)[0] as [BodyEncoding, Buffer];
    const body = encodeBody(decodeBody(bytes, from), encoding);
    page.bodies[encoding] = body;
    this.keep(userId, key, list, page);
    return body;
  }

  /** Keeps `page` with its list, its bodies counted. */
  private keep(userId: string, key: string, list: RankedItem[], page: ServedFirstPage): void {
    let bytes = SENT_PAGE_ITEM_BYTES * page.ids.length;
    for (const body of Object.values(page.bodies)) bytes += body.byteLength;
    this.state.keepWithList(userId, key, list, page, bytes);
  }

  /** The status JSON of these items (an item whose post is gone is left out). */
  private async jsonItems(items: RankedItem[]): Promise<Array<{ item: RankedItem; prefix: string }>> {
    const prefixes = await this.posts.statusJsonPrefixes(items.map((i) => i.post.id));
    return items.flatMap((item) => {
      const prefix = prefixes.get(item.post.id);
      return prefix === undefined ? [] : [{ item, prefix }];
    });
  }

  /** Whether every status of a sent page still serialises to the same cached JSON string (and none is gone). */
  private async unchanged(page: ServedFirstPage): Promise<boolean> {
    const version = this.state.statuses.version;
    if (page.statusVersion === version) return true;
    const now = await this.posts.statusJsonPrefixes(page.ids);
    if (now.size !== page.ids.length) return false;
    for (let i = 0; i < page.ids.length; i++) if (now.get(page.ids[i]!) !== page.prefixes[i]) return false;
    page.statusVersion = version;
    return true;
  }

  private async serve<T extends { item: RankedItem }>(
    userId: string,
    options: RecommendOptions,
    nowMs: number,
    render: (items: RankedItem[], ranked: RankedItem[]) => Promise<T[]>,
    begun?: { started: number; choice: RankingChoice; key: string },
  ): Promise<RecommendationPage<T>> {
    // A stale cursor is the caller's error, not a failed serving: checked before anything is timed.
    if (options.after !== undefined) checkCursorAge(options.after, nowMs);
    const started = begun?.started ?? performance.now();
    const choice = begun?.choice ?? this.withFittedDefault(await this.policy.choose(userId));
    let cacheHit = false;
    try {
      const list = await this.rankedList(userId, choice, options, nowMs, begun?.key);
      cacheHit = list.cacheHit;
      const after = options.after;
      const { items, more } = after === undefined ? firstPage(list.ranked, options.limit) : pageAfter(list.ranked, after, options.limit);
      const out = await render(items, list.ranked);
      await this.report(userId, choice, reportedItems(out.map((o) => o.item)), started, cacheHit, false);
      const served = [...(after?.served ?? []), ...items.map((item) => servedHash(item.post.id))];
      const next = more && served.length < MAX_RECOMMENDATION_DEPTH ? { rankedAtMs: list.rankedAtMs, served } : undefined;
      return { items: out, newestId: newestIdOf(items), next };
    } catch (error) {
      await this.report(userId, choice, [], started, cacheHit, true);
      throw error;
    }
  }

  /**
   * The default ranking (users outside experiments, or not enrolled) as it stands now: the
   * point the ranking_fit agent or the operator chose (RankingState.defaultRanking).
   */
  private withFittedDefault(choice: RankingChoice): RankingChoice {
    if (choice.algorithm !== 'default' || choice.enrolment !== undefined || choice.interleave !== undefined) return choice;
    const fitted = this.state.defaultRanking;
    return fitted.config === choice.config && fitted.options === choice.options ? choice : { ...choice, ...fitted };
  }

  /**
   * The ranked list a page is cut from, cached per user: a first page ranks `limit` posts
   * now; a later page ranks the list `MAX_RECOMMENDATION_DEPTH` deep at the cursor's instant.
   */
  private async rankedList(
    userId: string,
    choice: RankingChoice,
    options: RecommendOptions,
    nowMs: number,
    knownKey?: string,
  ): Promise<{ ranked: RankedItem[]; rankedAtMs: number; cacheHit: boolean }> {
    const after = options.after;
    const rankAtMs = after === undefined ? nowMs : after.rankedAtMs;
    const key = knownKey ?? this.listKey(choice, options, after);
    const cached = this.state.cachedList(userId, key, nowMs);
    this.metrics.recordCacheLookup('recommendations', cached !== undefined);
    if (cached !== undefined) return { ranked: cached, rankedAtMs: this.rankedAt.get(cached) ?? rankAtMs, cacheHit: true };
    const ranked = await this.rank(userId, choice, options, after === undefined ? options.limit : MAX_RECOMMENDATION_DEPTH, rankAtMs);
    this.state.storeList(userId, key, ranked, nowMs);
    this.rankedAt.set(ranked, rankAtMs);
    return { ranked, rankedAtMs: rankAtMs, cacheHit: false };
  }

  /** The cached list's key: the ranking, the page size (a first page) or the cursor's instant (a later one), and every filter. */
  private listKey(choice: RankingChoice, options: RecommendOptions, after: RecommendationCursor | undefined): string {
    const filters = `${options.maxId ?? ''}|${options.sinceId ?? ''}|${options.minId ?? ''}|${this.exclusionKey(options.excludeIds)}`;
    return after === undefined
      ? `${choice.algorithm}|${options.limit}|${filters}`
      : `${choice.algorithm}|deep@${after.rankedAtMs}|${filters}`;
  }

  private exclusionKey(ids: readonly string[] | undefined): string {
    if (ids === undefined || ids.length === 0) return '';
    let key = this.exclusionKeys.get(ids);
    if (key === undefined) {
      key = ids.join(',');
      this.exclusionKeys.set(ids, key);
    }
    return key;
  }

  private async rank(
    userId: string,
    choice: RankingChoice,
    options: RecommendOptions,
    limit: number,
    nowMs: number,
  ): Promise<RankedItem[]> {
    const profile = await loadProfile(this.sources, userId);
    const collaborative = weighsCollaborative(choice) ? await prepareCollaborative(this.sources, profile) : undefined;
    const index = this.state.index;
    // Scored at the ranking's clock: now on a live service, an imported history's own end (docs/ranking.md).
    const instant = this.state.rankingInstant(nowMs);
    const excludeIds = [...(options.excludeIds ?? []), ...this.outsideIdBounds(options)];
    const rankWith = (config: AlgorithmConfig): RankedItem[] =>
      rankCandidates(index, profile, config, {
        ...choice.options,
        limit,
        nowMs: instant.atMs,
        createdNotAfterMs: instant.createdNotAfterMs,
        excludeIds,
        ...(collaborative === undefined ? {} : { collaborative }),
      });
    // An interleaving experiment: both rankers' lists merged by team draft, each item tagged with its team.
    const items = choice.interleave ? interleaveRanked(choice.interleave, rankWith, limit) : rankWith(choice.config);
    this.metrics.modelPredictions.inc({ model_name: choice.algorithm }, index.size);
    return items;
  }

  /** Pool posts outside `max_id` / `since_id` / `min_id` (rare: only computed when asked). */
  private outsideIdBounds(options: RecommendOptions): string[] {
    if (options.maxId === undefined && options.sinceId === undefined && options.minId === undefined) return [];
    const max = options.maxId === undefined ? undefined : sortKeyOf(options.maxId);
    const lowers = [options.sinceId, options.minId].filter((id) => id !== undefined).map(sortKeyOf);
    const since = lowers.length === 0 ? undefined : lowers.reduce((a, b) => (a > b ? a : b));
    const out: string[] = [];
    for (const slot of this.state.index.slots) {
      if (slot === undefined) continue;
      const key = sortKeyOf(slot.post.id);
      if ((max !== undefined && key >= max) || (since !== undefined && key <= since)) out.push(slot.post.id);
    }
    return out;
  }

  private async report(
    userId: string,
    choice: RankingChoice,
    items: ServedList['items'],
    started: number,
    cacheHit: boolean,
    failed: boolean,
  ): Promise<void> {
    const latencyMs = performance.now() - started;
    this.metrics.recommendationGeneration.observe({ algorithm: choice.algorithm }, latencyMs / 1000);
    try {
      await this.policy.served({
        userId,
        choice,
        items,
        latencyMs,
        cacheHit,
        ...(failed ? { failed: true } : {}),
      });
    } catch {
      // The policy must not throw; if it does, the list is still served.
    }
  }
}

/** 400 naming `cursor` when its ranking instant is in the future or older than the TTL. */
function checkCursorAge(cursor: RecommendationCursor, nowMs: number): void {
  if (cursor.rankedAtMs > nowMs + 60_000 || nowMs - cursor.rankedAtMs > RECOMMENDATION_CURSOR_TTL_MS) {
    throw new ValidationError('cursor has expired (a list can be paged for 24 hours): start again from the first page', 'cursor');
  }
}

/** A first page: the list ranked `limit` deep; a full page may have more after it. */
function firstPage(ranked: RankedItem[], limit: number): { items: RankedItem[]; more: boolean } {
  const items = ranked.slice(0, limit);
  return { items, more: items.length === limit };
}

/** The next `limit` posts of the deep list that the cursor has not served, and whether any remain after them. */
function pageAfter(ranked: readonly RankedItem[], cursor: RecommendationCursor, limit: number): { items: RankedItem[]; more: boolean } {
  const served = new Set(cursor.served);
  const hashes = servedHashesOf(ranked);
  const items: RankedItem[] = [];
  for (let i = 0; i < ranked.length; i++) {
    if (served.has(hashes[i] ?? 0)) continue;
    if (items.length === limit) return { items, more: true };
    items.push(ranked[i] as RankedItem);
  }
  return { items, more: false };
}

/** servedHash of each post of a cached ranked list (never changed once cached), computed once per list. */
const rankedHashes = new WeakMap<readonly RankedItem[], Uint32Array>();

function servedHashesOf(ranked: readonly RankedItem[]): Uint32Array {
  let hashes = rankedHashes.get(ranked);
  if (hashes === undefined) {
    hashes = Uint32Array.from(ranked, (item) => servedHash(item.post.id));
    rankedHashes.set(ranked, hashes);
  }
  return hashes;
}

/** The largest post id among these items (ids order like creation times). */
function newestIdOf(items: readonly RankedItem[]): string | undefined {
  let newest: string | undefined;
  for (const item of items) if (newest === undefined || sortKeyOf(item.post.id) > sortKeyOf(newest)) newest = item.post.id;
  return newest;
}

/** What the serving report says of each item served (experiments record it as impressions). */
function reportedItems(items: readonly RankedItem[]): ServedList['items'] {
  return items.map((item) => {
    const team = teamOf(item);
    return { postId: item.post.id, score: item.score, reasonCode: item.reasonCode, ...(team === undefined ? {} : { team }) };
  });
}

/** The JSON array of these recommended posts, from each status's cached JSON and the ranking's fields. */
function jsonBodyOf(items: ReadonlyArray<{ item: RankedItem; prefix: string }>): Buffer {
  return jsonArrayBytes(items.map((o) => [o.prefix, rankingFieldsJson(o.item)]));
}

/** `ranking_score` as served: six decimals. */
function servedScore(item: RankedItem): number {
  return Math.round(item.score * 1e6) / 1e6;
}

/** The recommendation fields appended to a status' JSON (which lacks its closing brace). */
function rankingFieldsJson(item: RankedItem): string {
  const score = servedScore(item);
  const reason = JSON.stringify(item.reasonText);
  return (
    `,"ranking_score":${score},"recommendation_reason":${reason},"is_recommendation":true,` +
    `"recommendation_metadata":{"reason_code":"${item.reasonCode}","reason_string":${reason},"score":${score}}}`
  );
}

/** The wire shape of one recommendation. */
export function toRecommendedPost({ item, status }: Recommendation): RecommendedPost {
  const score = servedScore(item);
  return {
    ...status,
    ranking_score: score,
    recommendation_reason: item.reasonText,
    is_recommendation: true,
    recommendation_metadata: { reason_code: item.reasonCode, reason_string: item.reasonText, score },
  };
}

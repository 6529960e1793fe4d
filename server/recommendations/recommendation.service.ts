/**
 * Recommendations: asks the ranking policy which config ranks the user, serves a cached
 * list or ranks the in-memory pool with the user's profile, renders the posts as
 * Mastodon statuses with the ranking fields, and reports timing to metrics and policy.
 */
import type { Kysely } from 'kysely';
import { rankCandidates, type RankedItem } from '../../src/ranking/index.js';
import { ValidationError } from '../../src/errors.js';
import type { Status } from '../../src/schemas/post.schema.js';
import { MAX_EXCLUDE_IDS, type RecommendedPost } from '../../src/schemas/recommendation.schema.js';
import type { Database } from '../db/database.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { sortKeyOf } from '../posts/post-ids.js';
import type { PostService } from '../posts/post.service.js';
import { loadProfile } from './profile-loader.js';
import type { RankingChoice, RankingPolicy } from './ranking-policy.js';
import type { RankingState } from './ranking-state.js';

export interface RecommendOptions {
  limit: number;
  excludeIds?: readonly string[];
  maxId?: string;
  sinceId?: string;
}

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

export class RecommendationService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly state: RankingState,
    private readonly posts: PostService,
    private readonly metrics: ServiceMetrics,
    private readonly policy: RankingPolicy,
  ) {}

  /** The user's ranked recommendations, best first. */
  async recommend(userId: string, options: RecommendOptions, nowMs = Date.now()): Promise<Recommendation[]> {
    return this.serve(userId, options, nowMs, async (items) => {
      const statuses = await this.posts.statusesByIds(items.map((i) => i.post.id));
      return items.flatMap((item) => {
        const status = statuses.get(item.post.id);
        return status ? [{ item, status }] : [];
      });
    });
  }

  /**
   * The same list as `recommend`, already serialised as the JSON array of recommended
   * posts: each post's status JSON is cached, so a response is string concatenation.
   */
  async recommendJson(userId: string, options: RecommendOptions, nowMs = Date.now()): Promise<string> {
    const served = await this.serve(userId, options, nowMs, async (items) => {
      const prefixes = await this.posts.statusJsonPrefixes(items.map((i) => i.post.id));
      return items.flatMap((item) => {
        const prefix = prefixes.get(item.post.id);
        return prefix === undefined ? [] : [{ item, json: prefix + rankingFieldsJson(item) }];
      });
    });
    return `[${served.map((s) => s.json).join(',')}]`;
  }

  private async serve<T extends { item: RankedItem }>(
    userId: string,
    options: RecommendOptions,
    nowMs: number,
    render: (items: RankedItem[]) => Promise<T[]>,
  ): Promise<T[]> {
    const started = performance.now();
    const choice = await this.policy.choose(userId);
    let cacheHit = false;
    try {
      const key = `${choice.algorithm}|${options.limit}|${options.maxId ?? ''}|${options.sinceId ?? ''}|${(options.excludeIds ?? []).join(',')}`;
      let items = this.state.cachedList(userId, key, nowMs);
      cacheHit = items !== undefined;
      this.metrics.recordCacheLookup('recommendations', cacheHit);
      if (items === undefined) {
        items = await this.rank(userId, choice, options, nowMs);
        this.state.storeList(userId, key, items, nowMs);
      }
      const out = await render(items);
      await this.report(userId, choice, out.map((o) => o.item), started, cacheHit, false);
      return out;
    } catch (error) {
      await this.report(userId, choice, [], started, cacheHit, true);
      throw error;
    }
  }

  private async rank(userId: string, choice: RankingChoice, options: RecommendOptions, nowMs: number): Promise<RankedItem[]> {
    const profile = await loadProfile(this.db, this.state, userId);
    const excludeIds = [...(options.excludeIds ?? []), ...this.outsideIdBounds(options)];
    const items = rankCandidates(this.state.index, profile, choice.config, { limit: options.limit, nowMs, excludeIds });
    this.metrics.modelPredictions.inc({ model_name: choice.algorithm }, this.state.index.size);
    return items;
  }

  /** Pool posts outside `max_id` / `since_id` (rare: only computed when asked). */
  private outsideIdBounds(options: RecommendOptions): string[] {
    if (options.maxId === undefined && options.sinceId === undefined) return [];
    const max = options.maxId === undefined ? undefined : sortKeyOf(options.maxId);
    const since = options.sinceId === undefined ? undefined : sortKeyOf(options.sinceId);
    const out: string[] = [];
    for (const slot of this.state.index.slots) {
      if (slot === undefined) continue;
      const key = sortKeyOf(slot.post.id);
      if ((max !== undefined && key >= max) || (since !== undefined && key <= since)) out.push(slot.post.id);
    }
    return out;
  }

  private async report(userId: string, choice: RankingChoice, out: RankedItem[], started: number, cacheHit: boolean, failed: boolean): Promise<void> {
    const latencyMs = performance.now() - started;
    this.metrics.recommendationGeneration.observe({ algorithm: choice.algorithm }, latencyMs / 1000);
    try {
      await this.policy.served({
        userId,
        choice,
        items: out.map((item) => ({ postId: item.post.id, score: item.score, reasonCode: item.reasonCode })),
        latencyMs,
        cacheHit,
        ...(failed ? { failed: true } : {}),
      });
    } catch {
      // The policy must not throw; if it does, the list is still served.
    }
  }
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

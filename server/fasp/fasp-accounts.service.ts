/**
 * The account capabilities: follow recommendations (discovery/follow_recommendation v0.1) and
 * account search (discovery/account_search v0.1), from the service's stored accounts, posts
 * and interactions. Only accounts that said `discoverable: true` are ever returned
 * (src/fasp/accounts.ts, accountMayBeDiscovered); the stored account is the latest word its
 * server gave, so an opt-in withdrawn there is withdrawn here as soon as it is stored.
 *
 * Follow recommendations for an account (its ActivityPub id):
 * - its seeds: the posts of its newest interactions (the users it acts as through this service:
 *   its ids at the instances that showed it), and its own newest posts;
 * - co-engagement: the collaborative state's neighbours of those posts (posts engaged with by
 *   the same users), each counted count / √(engaged(seed) · engaged(neighbour)), summed per author;
 * - neighbours: the users who engaged with the same seeds (weighted by how many they share),
 *   and the authors they engaged with in the last NEIGHBOUR_WINDOW_DAYS, each neighbour once per author;
 * - popular: the authors whose posts of the last POPULAR_WINDOW_DAYS drew the most distinct
 *   engagers (in the language asked for): what is left when the account is unknown here;
 * - each signal scaled to its largest, combined (followScore), the account itself and the
 *   authors it already engages with left out, filtered to `language` (accounts with a stored
 *   post matching it by RFC 4647 basic filtering), and listed under the instance share (no
 *   instance beyond a quarter of the list while others are left: takeWithinShares).
 */
import type { Kysely } from 'kysely';
import {
  accountHost,
  accountMayBeDiscovered,
  followScore,
  languageMatches,
  scaledToMax,
  searchScore,
  searchWords,
  type DiscoverableAccount,
} from '../../src/fasp/index.js';
import { takeWithinShares } from '../../src/ranking/source-shares.js';
import type { CoEngagementReader } from '../../src/ranking/index.js';
import type { Database } from '../platform/db/database.js';
import * as repo from './fasp-accounts.repository.js';

/** Recommendations per request (Mastodon fetches each one it does not know). */
export const FOLLOW_RECOMMENDATIONS = 20;
const SEED_INTERACTIONS = 200;
const SEED_OWN_POSTS = 100;
const NEIGHBOURS = 200;
const NEIGHBOUR_WINDOW_DAYS = 90;
const NEIGHBOUR_AUTHOR_ROWS = 20_000;
const POPULAR_WINDOW_DAYS = 30;
const POPULAR_AUTHORS = 200;
/** Candidates whose accounts are read, best first. */
const CANDIDATES = 400;
const DAY_MS = 86_400_000;

/** Search results read per request before relevance orders them. */
export const SEARCH_CANDIDATES = 1_000;
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 100;

export interface FollowQuery {
  readonly accountUri: string;
  readonly language?: string | undefined;
}

export interface SearchQuery {
  readonly term: string;
  readonly limit: number;
  readonly offset: number;
  readonly language?: string | undefined;
}

function discoverable(row: repo.AccountRow): DiscoverableAccount {
  let extras: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.extras_json);
    if (typeof parsed === 'object' && parsed !== null) extras = parsed as Record<string, unknown>;
  } catch {
    // Unreadable extras say nothing: the account has not said it is discoverable.
  }
  return {
    uri: row.uri,
    username: row.username,
    acct: row.acct,
    displayName: row.display_name,
    note: row.note,
    discoverable: typeof extras.discoverable === 'boolean' ? extras.discoverable : null,
    memorial: extras.memorial === true,
  };
}

function add(map: Map<string, number>, key: string, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value);
}

export class FaspAccountsService {
  constructor(
    private readonly db: Kysely<Database>,
    /** The collaborative state (RankingState.coEngagement), read per request. */
    private readonly coEngagement: () => CoEngagementReader | undefined,
  ) {}

  /** Actor URIs to recommend to the account, best first. */
  async followRecommendations(query: FollowQuery, nowMs = Date.now()): Promise<string[]> {
    const accountId = await repo.accountIdByUri(this.db, query.accountUri);
    const userIds = accountId === undefined ? [] : await repo.userIdsOfAccount(this.db, accountId);
    const engaged = await repo.engagedPostIds(this.db, userIds, SEED_INTERACTIONS);
    const own = accountId === undefined ? [] : await repo.postIdsOfAuthor(this.db, accountId, SEED_OWN_POSTS);
    const known = new Set(await this.authorsOf(engaged));
    if (accountId !== undefined) known.add(accountId);

    const coEngaged = await this.coEngagedAuthors([...engaged, ...own]);
    const neighbours = await this.neighbourAuthors([...engaged, ...own], userIds, nowMs);
    const popular = new Map<string, number>();
    for (const row of await repo.popularAuthors(this.db, nowMs - POPULAR_WINDOW_DAYS * DAY_MS, query.language, POPULAR_AUTHORS))
      popular.set(row.accountId, row.engagers);

    const signals = { coEngaged: scaledToMax(coEngaged), neighbours: scaledToMax(neighbours), popular: scaledToMax(popular) };
    const scores = new Map<string, number>();
    for (const id of new Set([...coEngaged.keys(), ...neighbours.keys(), ...popular.keys()])) {
      if (known.has(id)) continue;
      scores.set(
        id,
        followScore({
          coEngaged: signals.coEngaged.get(id) ?? 0,
          neighbours: signals.neighbours.get(id) ?? 0,
          popular: signals.popular.get(id) ?? 0,
        }),
      );
    }
    const ordered = [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, CANDIDATES);
    const accounts = await this.admitted(
      ordered.map(([id]) => id),
      query.language,
    );
    const items = accounts
      .filter((a) => a.uri !== query.accountUri)
      .map((a) => ({ uri: a.uri, sourceInstance: accountHost(a.uri), accountId: a.uri }));
    return takeWithinShares(items, FOLLOW_RECOMMENDATIONS, { instance: 0.25, author: 1 }).map((item) => item.uri);
  }

  /** Actor URIs matching the term, most relevant first, one page, and whether more follow. */
  async search(query: SearchQuery): Promise<{ uris: string[]; more: boolean }> {
    const words = searchWords(query.term);
    const rows = await repo.accountsMatching(this.db, words, SEARCH_CANDIDATES);
    const candidates = rows.map((row) => ({ row, account: discoverable(row) })).filter((c) => accountMayBeDiscovered(c.account));
    const languages =
      query.language === undefined
        ? new Map<string, string[]>()
        : await repo.languagesOf(
            this.db,
            candidates.map((c) => c.row.id),
          );
    const scored = candidates
      .map((c) => ({ uri: c.account.uri, score: searchScore(words, c.account, languages.get(c.row.id) ?? [], query.language) }))
      .filter((c) => c.score > 0)
      // The store's order (most followed first) breaks ties: the sort is stable.
      .sort((a, b) => b.score - a.score);
    const uris = [...new Set(scored.map((c) => c.uri))];
    return { uris: uris.slice(query.offset, query.offset + query.limit), more: uris.length > query.offset + query.limit };
  }

  private async authorsOf(postIds: readonly string[]): Promise<string[]> {
    return [...new Set((await repo.authorsOfPosts(this.db, postIds)).values())];
  }

  /** Co-engaged posts of the seeds, summed per author. */
  private async coEngagedAuthors(seeds: readonly string[]): Promise<Map<string, number>> {
    const state = this.coEngagement();
    const byPost = new Map<string, number>();
    if (state !== undefined) {
      for (const seed of seeds) {
        const seedEngaged = state.engaged(seed);
        state.forEachNeighbour(seed, (neighbour, count, neighbourEngaged) => {
          const norm = Math.sqrt(Math.max(1, seedEngaged) * Math.max(1, neighbourEngaged));
          add(byPost, neighbour, count / norm);
        });
      }
    }
    const authors = await repo.authorsOfPosts(this.db, [...byPost.keys()].slice(0, 5_000));
    const out = new Map<string, number>();
    for (const [post, score] of byPost) {
      const author = authors.get(post);
      if (author !== undefined) add(out, author, score);
    }
    return out;
  }

  /** The authors the seeds' other engagers engaged with lately, each engager weighted by the seeds it shares. */
  private async neighbourAuthors(seeds: readonly string[], self: readonly string[], nowMs: number): Promise<Map<string, number>> {
    const neighbours = await repo.engagersOf(this.db, seeds, self, NEIGHBOURS);
    const weight = new Map(neighbours.map((n) => [n.userId, n.shared]));
    const rows = await repo.authorsEngagedBy(this.db, [...weight.keys()], nowMs - NEIGHBOUR_WINDOW_DAYS * DAY_MS, NEIGHBOUR_AUTHOR_ROWS);
    const out = new Map<string, number>();
    for (const row of rows) add(out, row.accountId, weight.get(row.userId) ?? 0);
    return out;
  }

  /** The accounts, in the given order, that may be discovered and (with a language) post in it. */
  private async admitted(ids: readonly string[], language: string | undefined): Promise<DiscoverableAccount[]> {
    const rows = new Map((await repo.accountsByIds(this.db, ids)).map((row) => [row.id, row]));
    const languages = language === undefined || language === '*' ? undefined : await repo.languagesOf(this.db, ids);
    const out: DiscoverableAccount[] = [];
    for (const id of ids) {
      const row = rows.get(id);
      if (row === undefined) continue;
      const account = discoverable(row);
      if (!accountMayBeDiscovered(account)) continue;
      if (languages !== undefined && !(languages.get(id) ?? []).some((tag) => languageMatches(language!, tag))) continue;
      out.push(account);
    }
    return out;
  }
}

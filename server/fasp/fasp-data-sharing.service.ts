/**
 * The data_sharing capability, provider side (discovery/data_sharing v0.1):
 * - once a server enables it, this service subscribes to its content and account lifecycle
 *   events and its content trends, and asks it to backfill content and accounts; once the
 *   server disables it, the subscriptions are deleted there;
 * - announcements (new, update, delete, trending, backfill) name URIs only: each object is
 *   fetched from its origin, signed (origin-fetcher.ts), and its consent checked
 *   (src/fasp/activitypub.ts) before anything is stored; a backfill that says more is
 *   available is continued;
 * - every object is revalidated the same way: at once when announced (a `delete` included: the
 *   origin's 404/410 or withdrawn consent removes it), and at least weekly from the list of
 *   stored objects (`revalidateDue`);
 * - removing a post removes everything derived (its tags, instance ids, interactions and
 *   feedback cascade; the ranking state forgets it: PostService.delete); an account that
 *   withdrew consent to indexing loses every stored post; one that withdrew discoverability is
 *   kept only as not discoverable (so no capability returns it); one that is gone is deleted.
 *   Either way, what users were learned to like about that author goes too (their `author`
 *   affinities to it, and the cached profiles holding them: `authorRemoved`).
 */
import type { Kysely } from 'kysely';
import {
  actorConsentsToDiscovery,
  actorConsentsToIndexing,
  actorToAccount,
  authorOf,
  hostOf,
  isActor,
  postConsents,
  postToStatus,
  type JsonObject,
} from '../../src/fasp/index.js';
import { sanitizeStatusHtml } from '../../src/mastodon/sanitize-status-html.js';
import type { AccountInput, StatusInput } from '../../src/schemas/post.schema.js';
import type { Database } from '../platform/db/database.js';
import { writeAccounts } from '../posts/post.service.js';
import { accountIdByUri, newAccountId, postIdByUri } from './fasp-accounts.repository.js';
import type { BackgroundTasks } from './background-tasks.js';
import { faspRequest } from './fasp-client.js';
import type { FaspService } from './fasp.service.js';
import type { OriginFetcher } from './origin-fetcher.js';

/** At least this often every stored object is checked at its origin again (the specification: weekly). */
export const REVALIDATE_AFTER_MS = 7 * 86_400_000;
/** Objects a backfill asks for per request. */
export const BACKFILL_COUNT = 100;

export type Category = 'content' | 'account';

export interface Announcement {
  readonly source: { readonly subscription?: { readonly id: string }; readonly backfillRequest?: { readonly id: string } };
  readonly category: Category;
  readonly eventType?: 'new' | 'update' | 'delete' | 'trending';
  readonly objectUris: readonly string[];
  readonly moreObjectsAvailable?: boolean;
}

/** What the service needs of the posts feature. */
export interface PostStore {
  ingestFromInstance(
    instance: string,
    inputs: readonly StatusInput[],
    options?: { nowMs?: number },
  ): Promise<{ ids: (string | undefined)[] }>;
  delete(id: string): Promise<unknown>;
}

/** What one object's revalidation did. */
export type Outcome = 'stored' | 'removed' | 'refused' | 'unknown';

const SUBSCRIPTIONS = [
  { category: 'content', subscriptionType: 'lifecycle', maxBatchSize: 50 },
  { category: 'account', subscriptionType: 'lifecycle', maxBatchSize: 50 },
  { category: 'content', subscriptionType: 'trends', threshold: { timeframe: 15, shares: 3, likes: 3, replies: 3 } },
] as const;

function idIn(body: unknown, key: string): string | undefined {
  const inner = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined;
  const id = typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>).id : undefined;
  return typeof id === 'string' ? id : typeof id === 'number' ? String(id) : undefined;
}

/** A server's data-sharing subscriptions and backfills, as `category/type#id` and `category#id`. */
export interface DataSharingState {
  readonly subscriptions: string[];
  readonly backfills: string[];
}

/** The server's subscriptions and backfills as stored. */
export async function dataSharingState(db: Kysely<Database>, serverId: string): Promise<DataSharingState> {
  const subscriptions = await db
    .selectFrom('fasp_subscriptions')
    .selectAll()
    .where('server_id', '=', serverId)
    .orderBy('created_at_ms')
    .execute();
  const backfills = await db.selectFrom('fasp_backfills').selectAll().where('server_id', '=', serverId).orderBy('created_at_ms').execute();
  return {
    subscriptions: subscriptions.map((s) => `${s.category}/${s.subscription_type}#${s.remote_id}`),
    backfills: backfills.map((b) => `${b.category}#${b.remote_id}${Number(b.more_available) === 1 ? '' : ' (done)'}`),
  };
}

export class FaspDataSharingService {
  /** The FASP base URL (`{public url}{path}`) of the latest signed request: the actor's address for signing fetches. */
  private faspBase: string | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly servers: FaspService,
    private readonly tasks: BackgroundTasks,
    private readonly fetcher: OriginFetcher,
    private readonly posts: PostStore,
    private readonly options: {
      faspBase?: string | undefined;
      fetchImpl?: typeof fetch;
      now?: () => number;
      /** Forgets what was learned about an author whose consent is gone (the users' affinities to it): fasp.feature.ts. */
      authorRemoved?: (accountId: string) => Promise<void>;
    } = {},
  ) {
    this.faspBase = options.faspBase;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Learns this service's FASP base URL from a request (when no public URL is configured). */
  seenBase(faspBase: string): void {
    if (this.options.faspBase === undefined) this.faspBase = faspBase;
  }

  /** The server enabled or disabled data_sharing: subscribe and backfill, or unsubscribe (in the background). */
  capabilityChanged(serverId: string, enabled: boolean): void {
    this.tasks.run(`server:${serverId}`, enabled ? 'FASP data_sharing subscription' : 'FASP data_sharing unsubscription', () =>
      enabled ? this.subscribe(serverId) : this.unsubscribe(serverId),
    );
  }

  /** Subscribes to the server's events and asks for a backfill of each category. */
  async subscribe(serverId: string): Promise<void> {
    const nowMs = this.now();
    for (const subscription of SUBSCRIPTIONS) {
      const answer = await this.request(serverId, 'POST', '/data_sharing/v0/event_subscriptions', subscription);
      const id = idIn(answer.body, 'subscription');
      if (answer.status !== 201 || id === undefined || !answer.verified) throw new Error(`subscribing answered ${answer.status}`);
      await this.db
        .insertInto('fasp_subscriptions')
        .values({
          server_id: serverId,
          remote_id: id,
          category: subscription.category,
          subscription_type: subscription.subscriptionType,
          created_at_ms: nowMs,
        })
        .onConflict((oc) => oc.columns(['server_id', 'remote_id']).doNothing())
        .execute();
    }
    for (const category of ['content', 'account'] as const) {
      const answer = await this.request(serverId, 'POST', '/data_sharing/v0/backfill_requests', { category, maxCount: BACKFILL_COUNT });
      const id = idIn(answer.body, 'backfillRequest');
      if (answer.status !== 201 || id === undefined || !answer.verified) throw new Error(`requesting a backfill answered ${answer.status}`);
      await this.db
        .insertInto('fasp_backfills')
        .values({ server_id: serverId, remote_id: id, category, more_available: 1, created_at_ms: nowMs })
        .onConflict((oc) => oc.columns(['server_id', 'remote_id']).doNothing())
        .execute();
    }
  }

  /** Deletes the subscriptions made on the server. */
  async unsubscribe(serverId: string): Promise<void> {
    const rows = await this.db.selectFrom('fasp_subscriptions').select('remote_id').where('server_id', '=', serverId).execute();
    for (const row of rows) {
      const answer = await this.request(serverId, 'DELETE', `/data_sharing/v0/event_subscriptions/${encodeURIComponent(row.remote_id)}`);
      if (answer.status !== 204 && answer.status !== 404) throw new Error(`unsubscribing answered ${answer.status}`);
      await this.db.deleteFrom('fasp_subscriptions').where('server_id', '=', serverId).where('remote_id', '=', row.remote_id).execute();
    }
  }

  /** The server's subscriptions and backfills as stored (tests, `recsvc fasp show`). */
  subscriptions(serverId: string): Promise<DataSharingState> {
    return dataSharingState(this.db, serverId);
  }

  /** An announcement: every URI revalidated in the background (deletions on their own queue, so nothing delays them). */
  announced(serverId: string, announcement: Announcement): void {
    const key = announcement.eventType === 'delete' ? `delete:${serverId}` : `announced:${serverId}`;
    this.tasks.run(key, 'FASP announcement', async () => {
      for (const uri of new Set(announcement.objectUris)) await this.revalidate(uri, announcement.category);
      const backfill = announcement.source.backfillRequest?.id;
      if (backfill !== undefined) await this.backfillAnswered(serverId, backfill, announcement.moreObjectsAvailable === true);
    });
  }

  /** Records a backfill's progress, and asks for more when the server has more. */
  private async backfillAnswered(serverId: string, remoteId: string, more: boolean): Promise<void> {
    const known = await this.db
      .updateTable('fasp_backfills')
      .set({ more_available: more ? 1 : 0 })
      .where('server_id', '=', serverId)
      .where('remote_id', '=', remoteId)
      .executeTakeFirst();
    if (!more || Number(known.numUpdatedRows) === 0) return;
    await this.request(serverId, 'POST', `/data_sharing/v0/backfill_requests/${encodeURIComponent(remoteId)}/continuation`);
  }

  /** Revalidates the stored objects last checked more than REVALIDATE_AFTER_MS ago (at most `limit`); how many. */
  async revalidateDue(limit = 200): Promise<number> {
    const nowMs = this.now();
    const due = await this.db
      .selectFrom('fasp_objects')
      .select(['uri', 'category'])
      .where('validated_at_ms', '<=', nowMs - REVALIDATE_AFTER_MS)
      .orderBy('validated_at_ms')
      .limit(limit)
      .execute();
    for (const row of due) await this.revalidate(row.uri, row.category as Category);
    return due.length;
  }

  /** Fetches the object at its origin and stores, updates or removes it by its consent. */
  async revalidate(uri: string, category: Category): Promise<Outcome> {
    if (hostOf(uri) === '') return 'refused';
    const base = this.faspBase;
    if (base === undefined) return 'unknown';
    const fetched = await this.fetcher.fetch(uri, base, this.now());
    if (fetched.kind === 'unknown') return 'unknown';
    if (fetched.kind === 'gone' || fetched.object.type === 'Tombstone') {
      if (category === 'account') await this.accountGone(uri);
      else await this.removePost(uri);
      return 'removed';
    }
    return category === 'account' ? this.account(uri, fetched.object) : this.post(uri, fetched.object, base);
  }

  private async post(uri: string, post: JsonObject, base: string): Promise<Outcome> {
    const authorUri = authorOf(post);
    if (authorUri === undefined || hostOf(authorUri) !== hostOf(uri)) {
      await this.removePost(uri);
      return 'refused';
    }
    const fetched = await this.fetcher.fetch(authorUri, base, this.now());
    if (fetched.kind === 'unknown') return 'unknown';
    if (fetched.kind === 'gone' || fetched.object.type === 'Tombstone') {
      await this.accountGone(authorUri);
      await this.removePost(uri);
      return 'removed';
    }
    const author = fetched.object;
    if (!actorConsentsToIndexing(author) && author.id === authorUri) await this.accountWithdrew(authorUri, author);
    if (!postConsents(uri, post, author)) {
      await this.removePost(uri);
      return 'refused';
    }
    const status = postToStatus(post, author) as unknown as StatusInput;
    const { ids } = await this.posts.ingestFromInstance(hostOf(uri), [status], { nowMs: this.now() });
    if (ids[0] === undefined) return 'refused';
    await this.validated(uri, 'content');
    return 'stored';
  }

  private async account(uri: string, actor: JsonObject): Promise<Outcome> {
    if (!isActor(actor) || actor.id !== uri) return 'refused';
    if (!actorConsentsToIndexing(actor) || !actorConsentsToDiscovery(actor)) await this.accountWithdrew(uri, actor);
    if (!actorConsentsToDiscovery(actor)) return 'refused';
    await this.writeAccount(actor);
    await this.validated(uri, 'account');
    return 'stored';
  }

  private async validated(uri: string, category: Category): Promise<void> {
    const nowMs = this.now();
    await this.db
      .insertInto('fasp_objects')
      .values({ uri, category, validated_at_ms: nowMs })
      .onConflict((oc) => oc.column('uri').doUpdateSet({ category, validated_at_ms: nowMs }))
      .execute();
  }

  /** Stores or refreshes an account from its actor document. */
  private async writeAccount(actor: JsonObject): Promise<void> {
    const input = actorToAccount(actor) as unknown as AccountInput;
    const uri = input.uri!;
    const nowMs = this.now();
    const note = sanitizeStatusHtml(input.note ?? '');
    const existing = await accountIdByUri(this.db, uri);
    if (existing === undefined) {
      const id = await newAccountId(this.db, uri, Date.parse(input.created_at ?? '') || nowMs);
      await writeAccounts(this.db, [{ ...input, id, note }], nowMs, { keepOriginals: false });
      return;
    }
    // A stored account keeps what its own instance told (counts, avatars): only what the actor says changes.
    await this.db
      .updateTable('accounts')
      .set({
        display_name: input.display_name ?? input.username,
        note,
        extras_json: this.mergedExtras(await this.extrasOf(existing), actor),
      })
      .where('id', '=', existing)
      .execute();
  }

  private async extrasOf(accountId: string): Promise<Record<string, unknown>> {
    const row = await this.db.selectFrom('accounts').select('extras_json').where('id', '=', accountId).executeTakeFirst();
    try {
      const parsed: unknown = JSON.parse(row?.extras_json ?? '{}');
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }

  private mergedExtras(extras: Record<string, unknown>, actor: JsonObject): string {
    return JSON.stringify({ ...extras, discoverable: actor.discoverable === true, indexable: actor.indexable === true });
  }

  /**
   * The account withdrew consent (not indexable, or not discoverable): its stored flags say so
   * at once (so no capability returns it), and without indexing none of its posts stays.
   */
  private async accountWithdrew(uri: string, actor: JsonObject): Promise<void> {
    const accountId = await accountIdByUri(this.db, uri);
    if (accountId === undefined) return;
    await this.db
      .updateTable('accounts')
      .set({ extras_json: this.mergedExtras(await this.extrasOf(accountId), actor) })
      .where('id', '=', accountId)
      .execute();
    if (!actorConsentsToIndexing(actor)) await this.removePostsOf(accountId);
    if (!actorConsentsToDiscovery(actor)) await this.db.deleteFrom('fasp_objects').where('uri', '=', uri).execute();
    await this.options.authorRemoved?.(accountId);
  }

  /** The account is gone at its origin: its posts, then the account itself. */
  private async accountGone(uri: string): Promise<void> {
    const accountId = await accountIdByUri(this.db, uri);
    await this.db.deleteFrom('fasp_objects').where('uri', '=', uri).execute();
    if (accountId === undefined) return;
    await this.removePostsOf(accountId);
    await this.options.authorRemoved?.(accountId);
    await this.db.deleteFrom('accounts').where('id', '=', accountId).execute();
  }

  private async removePostsOf(accountId: string): Promise<void> {
    const posts = await this.db.selectFrom('posts').select(['id', 'uri']).where('account_id', '=', accountId).execute();
    for (const post of posts) await this.removePost(post.uri);
  }

  private async removePost(uri: string): Promise<void> {
    await this.db.deleteFrom('fasp_objects').where('uri', '=', uri).execute();
    const stored = await postIdByUri(this.db, uri);
    if (stored === undefined) return;
    try {
      await this.posts.delete(stored);
    } catch {
      // Already deleted (a reblog removed with its original, or a concurrent delete): nothing is left to remove.
    }
  }

  private request(serverId: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
    return faspRequest(this.servers, serverId, method, path, body, {
      ...(this.options.fetchImpl === undefined ? {} : { fetchImpl: this.options.fetchImpl }),
      nowMs: this.now(),
    });
  }
}

/**
 * Whom a reader follows, as far as recommendations into their home timeline need it: a status
 * of an account they follow comes to their home timeline anyway, so recommending it would show
 * it twice. Learned from what their instance says, cheaply: every author on their own home page
 * is followed (or is themselves), and the authors of candidate recommendations not known yet are
 * asked in one `GET /api/v1/accounts/relationships?id[]=…` with the reader's token. Remembered
 * per reader for FOLLOWED_TTL_MS, bounded; when the instance cannot answer, nobody is taken as
 * followed (a duplicate is better than an empty page).
 */
import { LRUCache } from 'lru-cache';
import type { InstanceAddress, InstanceClient } from '../platform/social/social.service.js';

export const FOLLOWED_TTL_MS = 10 * 60_000;
const READERS_REMEMBERED = 10_000;
/** Accounts asked about per request (Mastodon answers up to 40 ids at once on older versions). */
const RELATIONSHIPS_PER_REQUEST = 40;

export class FollowedAccounts {
  private readonly readers = new LRUCache<string, Map<string, boolean>>({ max: READERS_REMEMBERED, ttl: FOLLOWED_TTL_MS });

  constructor(private readonly client: Pick<InstanceClient, 'request'>) {}

  /** The authors of the reader's own home page (instance ids) are followed by them, or are them. */
  learnFromHome(readerKey: string, authorIds: readonly string[]): void {
    const known = this.known(readerKey);
    for (const id of authorIds) known.set(id, true);
  }

  /** Of `accountIds` (the instance's ids), those the reader follows. */
  async followedOf(readerKey: string, instance: InstanceAddress, token: string, accountIds: readonly string[]): Promise<Set<string>> {
    const known = this.known(readerKey);
    const unknown = [...new Set(accountIds.filter((id) => !known.has(id)))].slice(0, RELATIONSHIPS_PER_REQUEST);
    if (unknown.length > 0) {
      try {
        const response = await this.client.request<unknown>(instance, {
          path: '/api/v1/accounts/relationships',
          query: { 'id[]': unknown },
          token,
        });
        const answered = Array.isArray(response.body) ? (response.body as { id?: unknown; following?: unknown }[]) : [];
        for (const relationship of answered) {
          if (typeof relationship.id === 'string') known.set(relationship.id, relationship.following === true);
        }
      } catch {
        // The instance cannot say: nobody is taken as followed, and they are asked again next time.
      }
    }
    return new Set(accountIds.filter((id) => known.get(id) === true));
  }

  private known(readerKey: string): Map<string, boolean> {
    let known = this.readers.get(readerKey);
    if (known === undefined) {
      known = new Map();
      this.readers.set(readerKey, known);
    }
    return known;
  }
}

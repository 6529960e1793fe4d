/**
 * Recommendations as a reader on another instance must see them (decisions.md, "Reader-local
 * ids"): a status injected into instance B's timeline carries B's own id for it and for its
 * author (so favourite, boost, reply and the author's profile work from any Mastodon client),
 * and `acct` with the domain unless the author is on B. A status B has no id for is not
 * injected: its uri is handed to the resolver (./status-resolver.ts), which asks B once, off
 * the page's path, and the mapping it stores serves later pages.
 *
 * Fields that name other statuses or accounts by id (`in_reply_to_*`, a reblog's original) are
 * B's ids when known, else null (a reply whose parent B never showed loses its thread marker,
 * not its content). Mentions keep their URLs, which every client opens.
 */
import type { Status } from '../../src/schemas/post.schema.js';
import { accountDomain, acctFor } from '../../src/mastodon/status-origin.js';

/** An instance's own ids for the service's posts and accounts. */
export interface LocalIds {
  readonly posts: ReadonlyMap<string, string>;
  readonly accounts: ReadonlyMap<string, string>;
}

/** The service's ids a status needs mapped for a reader: its own, its author's, its reblogged original's and that author's. */
export function idsNeeded(status: Status): { posts: string[]; accounts: string[] } {
  const posts = [status.id];
  const accounts = [status.account.id];
  if (status.in_reply_to_id) posts.push(status.in_reply_to_id);
  if (status.in_reply_to_account_id) accounts.push(status.in_reply_to_account_id);
  if (status.reblog) {
    posts.push(status.reblog.id);
    accounts.push(status.reblog.account.id);
  }
  return { posts, accounts };
}

/** The status as a reader on `readerInstance` sees it, or undefined when that instance has no id for it or its author. */
export function readerStatus(status: Status, readerInstance: string, ids: LocalIds): Status | undefined {
  const core = readerCore(status, readerInstance, ids);
  if (core === undefined) return undefined;
  if (!status.reblog) return core as Status;
  const original = readerCore(status.reblog, readerInstance, ids);
  return original === undefined ? undefined : { ...core, reblog: original };
}

type StatusCore = Omit<Status, 'reblog'>;

function readerCore(status: StatusCore, readerInstance: string, ids: LocalIds): StatusCore | undefined {
  const id = ids.posts.get(status.id);
  const accountId = ids.accounts.get(status.account.id);
  if (id === undefined || accountId === undefined) return undefined;
  const account = status.account;
  const username = account.acct.split('@')[0] ?? account.username;
  return {
    ...status,
    id,
    in_reply_to_id: status.in_reply_to_id === null ? null : (ids.posts.get(status.in_reply_to_id) ?? null),
    in_reply_to_account_id: status.in_reply_to_account_id === null ? null : (ids.accounts.get(status.in_reply_to_account_id) ?? null),
    account: { ...account, id: accountId, acct: acctFor(username, accountDomain(account.acct, account.uri), readerInstance) },
  };
}

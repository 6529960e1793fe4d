/**
 * Which recommendations belong on which timeline (a recommendation is woven only into a
 * timeline it could have appeared on): a tag's timeline takes only statuses with that tag,
 * `local=true` only statuses by accounts of the reader's instance, `remote=true` only others,
 * `only_media=true` only statuses with media. Home takes any (the accounts the user follows are
 * left out by ./followed-accounts.ts).
 */
import { normaliseTag } from '../../src/ranking/index.js';
import { accountDomain } from '../../src/mastodon/status-origin.js';
import type { Status } from '../../src/schemas/post.schema.js';

/** What a timeline asks of its statuses. */
export interface TimelineFilter {
  readonly tag?: string;
  readonly local?: boolean;
  readonly remote?: boolean;
  readonly onlyMedia?: boolean;
}

/** Mastodon reads boolean query parameters as true for `true` and `1`. */
export function queryFlag(value: string | undefined): boolean {
  return value === 'true' || value === '1';
}

/** A predicate: the status (or the original it reblogs) could be on a timeline with `filter`, for a reader on `readerInstance`. */
export function fitsTimeline(filter: TimelineFilter, readerInstance: string): (status: Status) => boolean {
  const tag = filter.tag === undefined ? undefined : normaliseTag(filter.tag);
  const reader = readerInstance.toLowerCase();
  return (status) => {
    const shown = status.reblog ?? status;
    if (tag !== undefined && !shown.tags.some((item) => normaliseTag(item.name) === tag)) return false;
    if (filter.onlyMedia === true && shown.media_attachments.length === 0) return false;
    if (filter.local === true || filter.remote === true) {
      const local = accountDomain(status.account.acct, status.account.uri) === reader;
      if (filter.local === true && !local) return false;
      if (filter.remote === true && local) return false;
    }
    return true;
  };
}

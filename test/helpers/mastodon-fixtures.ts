/** Mastodon-shaped statuses for tests, with ids that sort by creation time. */
import type { StatusInput } from '../../src/schemas/post.schema.js';

export const BASE_MS = Date.parse('2025-03-01T12:00:00.000Z');

/** A numeric Mastodon-like id for the n-th post (n sorts like the id). */
export function postId(n: number): string {
  return String(110_000_000_000_000_000n + BigInt(n));
}

export interface StatusOptions {
  n: number;
  author?: string | undefined;
  tags?: string[];
  text?: string;
  ageHours?: number;
  favourites?: number;
  reblogs?: number;
  replies?: number;
  language?: string | null;
  nowMs?: number;
}

/** A status numbered `n`, by `author` (default `author1`), created `ageHours` before now. */
export function makeStatus(options: StatusOptions): StatusInput {
  const author = options.author ?? 'author1';
  const nowMs = options.nowMs ?? Date.now();
  const createdMs = nowMs - (options.ageHours ?? 1) * 3_600_000 + options.n;
  const tags = options.tags ?? [];
  return {
    id: postId(options.n),
    created_at: new Date(createdMs).toISOString(),
    content: `<p>${options.text ?? `Post number ${options.n} about things`} ${tags.map((t) => `#${t}`).join(' ')}</p>`,
    visibility: 'public',
    language: options.language === undefined ? 'en' : options.language,
    account: {
      id: `acc-${author}`,
      username: author,
      acct: author,
      display_name: author.toUpperCase(),
      url: `https://social.example/@${author}`,
      avatar: `https://social.example/avatars/${author}.png`,
    },
    tags: tags.map((name) => ({ name, url: `https://social.example/tags/${name}` })),
    favourites_count: options.favourites ?? 0,
    reblogs_count: options.reblogs ?? 0,
    replies_count: options.replies ?? 0,
  };
}

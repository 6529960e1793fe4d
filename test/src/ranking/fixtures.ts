import type { RankablePost } from '../../../src/ranking/index.js';

/** A fixed clock for every ranking test: 2025-01-10T00:00:00.000Z. */
export const NOW = Date.UTC(2025, 0, 10);

export const HOUR = 3_600_000;

/** A post with neutral defaults; override what the test is about. */
export function post(id: string, overrides: Partial<RankablePost> = {}): RankablePost {
  return {
    id,
    accountId: `acct-${id}`,
    accountUsername: `user${id}`,
    text: '',
    tags: [],
    language: 'en',
    createdAtMs: NOW - 6 * HOUR,
    favourites: 0,
    reblogs: 0,
    replies: 0,
    reblogOfId: null,
    sensitive: false,
    ...overrides,
  };
}

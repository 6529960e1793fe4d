/** An evaluation post (src/evaluation/dataset.ts) with neutral defaults: public, no counts, no tags; override what the test is about. */
import type { EvalPost } from '../../src/evaluation/dataset.js';

export function evalPost(id: string, createdAtMs: number, overrides: Partial<EvalPost> = {}): EvalPost {
  return {
    id,
    accountId: `a-${id}`,
    accountUsername: `author-${id}`,
    text: `post ${id}`,
    tags: [],
    language: 'en',
    createdAtMs,
    favourites: 0,
    reblogs: 0,
    replies: 0,
    reblogOfId: null,
    sensitive: false,
    visibility: 'public',
    ...overrides,
  };
}

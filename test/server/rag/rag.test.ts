/** POST /api/v1/rag/query through real HTTP (inject) on a real SQLite database, without a language model. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT_POLICY } from '../../../src/rate-limit/policy.js';
import { loadDocumentation } from '../../../server/rag/docs-corpus.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { createRagTestApp, ragQuery, type RagTestApp } from './rag-app.js';

interface Body {
  data: {
    query: string;
    answer: string;
    answer_mode: string;
    citations: number[];
    chunks: Array<{ citation: number; id: string; text: string; score: number; source: Record<string, unknown> }>;
  };
}

const DOC_CHUNKS = loadDocumentation().length;

describe('RAG query', () => {
  let t: RagTestApp;
  let breadId: string;
  let privatePostId: string;

  beforeAll(async () => {
    t = await createRagTestApp({
      excludedAuthors: (ids) => new Set(ids.filter((id) => id === 'acc-hermit')),
      before: async (app, adminHeaders) => {
        const store = async (payload: object) => {
          const response = await app.inject({ method: 'POST', url: '/api/v1/posts', headers: adminHeaders, payload });
          expect(response.statusCode).toBe(201);
        };
        const bread = makeStatus({
          n: 1,
          text: 'My sourdough starter likes 100% hydration and rye flour, fed twice a day',
          tags: ['baking'],
        });
        breadId = postId(1);
        await store(bread);
        await store(makeStatus({ n: 2, text: 'Cycling along the river at dawn, the fog lifting over the water' }));
        await store(makeStatus({ n: 3, text: 'The hermit crab found a new shell on the beach', author: 'hermit' }));
        privatePostId = postId(4);
        await store({ ...makeStatus({ n: 4, text: 'secret kombucha fermentation diary' }), visibility: 'private' });
      },
    });
  });
  afterAll(async () => t.close());

  it('answers how a user is assigned to a variant with the paragraph on assignment (docs/experiments.md) first', async () => {
    const response = await ragQuery(t.app, t.readHeaders, { query: 'How is a user assigned to a variant?' });
    expect(response.statusCode).toBe(200);
    const { data } = response.json<Body>();
    const first = data.chunks[0];
    expect(first?.source).toMatchObject({ type: 'doc', path: 'docs/experiments.md' });
    expect(first?.source.heading).toContain('Assignment');
    expect(first?.text).toContain('MD5 of `<user_id>_<experiment_id>`');
    expect(first?.citation).toBe(1);
    expect(data.chunks.map((c) => c.score)).toEqual([...data.chunks.map((c) => c.score)].sort((a, b) => b - a));
    expect(data.answer_mode).toBe('extractive');
    expect(data.answer).toMatch(/^Extractive summary \(no language model is configured\)/);
    expect(data.answer).toContain('MD5');
    expect(data.citations).toContain(1);
  });

  it('finds a stored post by its topic, with its id and url as the source', async () => {
    const response = await ragQuery(t.app, t.readHeaders, { query: 'what hydration for a sourdough starter?', limit: 3 });
    const { data } = response.json<Body>();
    expect(data.chunks[0]?.source).toMatchObject({ type: 'post', post_id: breadId, account_id: 'acc-author1' });
    expect(data.chunks[0]?.text).toContain('100% hydration');
    expect(data.answer).toContain('[1]');
  });

  it('never indexes private posts nor the posts of an excluded author (privacy hook)', async () => {
    for (const query of ['kombucha fermentation diary', 'hermit crab shell beach']) {
      const { data } = (await ragQuery(t.app, t.readHeaders, { query })).json<Body>();
      expect(data.chunks.every((c) => c.source.type === 'doc')).toBe(true);
      expect(data.chunks.some((c) => c.source.post_id === privatePostId)).toBe(false);
    }
    // Three posts stored as public, one of them by the excluded author: two indexed.
    expect(t.runtime.index.size).toBe(DOC_CHUNKS + 2);
  });

  it('bounds the chunks by limit (default 5)', async () => {
    const many = (await ragQuery(t.app, t.readHeaders, { query: 'experiment variant users ranking token' })).json<Body>();
    expect(many.data.chunks).toHaveLength(5);
    const two = (await ragQuery(t.app, t.readHeaders, { query: 'experiment variant users ranking token', limit: 2 })).json<Body>();
    expect(two.data.chunks.map((c) => c.id)).toEqual(many.data.chunks.slice(0, 2).map((c) => c.id));
    const most = (await ragQuery(t.app, t.readHeaders, { query: 'experiment variant users ranking token', limit: 20 })).json<Body>();
    expect(most.data.chunks).toHaveLength(20);
  });

  it('says so when nothing matches', async () => {
    const { data } = (await ragQuery(t.app, t.readHeaders, { query: 'zzyzx qwertyuiop' })).json<Body>();
    expect(data.chunks).toEqual([]);
    expect(data.answer).toMatch(/No passage/);
  });

  it.each([
    [{}, 'query'],
    [{ query: '' }, 'query'],
    [{ query: '   ' }, 'query'],
    [{ query: 42 }, 'query'],
    [{ query: 'x'.repeat(1001) }, 'query'],
    [{ query: 'ranking', limit: 0 }, 'limit'],
    [{ query: 'ranking', limit: 21 }, 'limit'],
    [{ query: 'ranking', limit: 2.5 }, 'limit'],
    [{ query: 'ranking', limit: '3' }, 'limit'],
    [{ query: 'ranking', top_k: 3 }, 'top_k'],
  ])('400 naming the field for %j', async (payload, field) => {
    const response = await ragQuery(t.app, t.readHeaders, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ field, status_code: 400 });
  });

  it('401 without a token', async () => {
    const response = await ragQuery(t.app, {}, { query: 'ranking' });
    expect(response.statusCode).toBe(401);
  });

  it('indexes a newly stored post at the next indexer run, and drops a deleted one', async () => {
    const query = { query: 'axolotl limb regeneration' };
    const id = await t.storePost(50, 'Axolotl limb regeneration studied in the lab this week');
    const before = (await ragQuery(t.app, t.readHeaders, query)).json<Body>();
    expect(before.data.chunks.some((c) => c.source.post_id === id)).toBe(false);
    await t.reindex();
    const after = (await ragQuery(t.app, t.readHeaders, query)).json<Body>();
    expect(after.data.chunks[0]?.source.post_id).toBe(id);
    expect(t.runtime.index.health()).toEqual({ status: 'ready', chunks_loaded: DOC_CHUNKS + 3 });

    const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/posts/${id}`, headers: t.adminHeaders });
    expect(deleted.statusCode).toBe(200);
    await t.reindex();
    const gone = (await ragQuery(t.app, t.readHeaders, query)).json<Body>();
    expect(gone.data.chunks.some((c) => c.source.post_id === id)).toBe(false);
    expect(t.runtime.index.health().chunks_loaded).toBe(DOC_CHUNKS + 2);
  });

  it('re-indexes an edited post', async () => {
    const id = await t.storePost(60, 'Tomato seedlings on the windowsill');
    await t.reindex();
    await t.storePost(60, 'Pepper seedlings replaced the tomatoes');
    await t.reindex();
    const { data } = (await ragQuery(t.app, t.readHeaders, { query: 'pepper seedlings' })).json<Body>();
    expect(data.chunks[0]?.source.post_id).toBe(id);
    expect(data.chunks[0]?.text).toContain('Pepper');
  });

  it('index.removeAuthor drops every chunk of an author at once', async () => {
    const size = t.runtime.index.size;
    expect(t.runtime.index.removeAuthor('acc-author1')).toBeGreaterThan(0);
    const { data } = (await ragQuery(t.app, t.readHeaders, { query: 'sourdough starter hydration' })).json<Body>();
    expect(data.chunks.some((c) => c.source.type === 'post')).toBe(false);
    expect(t.runtime.index.size).toBeLessThan(size);
  });
});

describe('RAG memory bound', () => {
  it('keeps only the newest RECSVC_RAG_MAX_POSTS posts', async () => {
    const t = await createRagTestApp({ settings: { maxIndexedPosts: 2 } });
    try {
      const oldest = await t.storePost(1, 'Lighthouse keepers of the northern coast');
      const middle = await t.storePost(2, 'Lighthouse lenses made of glass prisms');
      const newest = await t.storePost(3, 'Lighthouse automation ended the keepers era');
      await t.reindex();
      const { data } = (await ragQuery(t.app, t.readHeaders, { query: 'lighthouse', limit: 20 })).json<Body>();
      const posts = data.chunks.filter((c) => c.source.type === 'post').map((c) => c.source.post_id);
      expect(posts.sort()).toEqual([middle, newest].sort());
      expect(posts).not.toContain(oldest);
      expect(t.runtime.index.health().chunks_loaded).toBe(DOC_CHUNKS + 2);
      const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain(`service_cache_entries{cache="rag_chunks"} ${DOC_CHUNKS + 2}`);
      expect(metrics).toContain(`service_cache_bytes{cache="rag_chunks"} ${t.runtime.index.chars}`);
    } finally {
      await t.close();
    }
  });
});

describe('RAG rate limit', () => {
  it('answers 429 with retry_after once the rag group window is spent', async () => {
    const policy = { ...DEFAULT_RATE_LIMIT_POLICY, groups: { ...DEFAULT_RATE_LIMIT_POLICY.groups, rag: [{ seconds: 60, max: 3 }] } };
    const t = await createRagTestApp({ rateLimit: policy });
    try {
      for (let i = 0; i < 3; i += 1) {
        const ok = await ragQuery(t.app, t.readHeaders, { query: 'ranking' });
        expect(ok.statusCode).toBe(200);
        expect(ok.headers['x-ratelimit-limit']).toBe('3');
        expect(ok.headers['x-ratelimit-remaining']).toBe(String(2 - i));
      }
      const refused = await ragQuery(t.app, t.readHeaders, { query: 'ranking' });
      expect(refused.statusCode).toBe(429);
      expect(refused.json<{ retry_after: number }>().retry_after).toBeGreaterThan(0);
      // Other routes are outside the rag group: still allowed.
      const other = await t.app.inject({ method: 'GET', url: '/api/v1/posts', headers: t.readHeaders });
      expect(other.statusCode).not.toBe(429);
    } finally {
      await t.close();
    }
  });
});

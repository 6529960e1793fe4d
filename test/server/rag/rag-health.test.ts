/** `chunks_loaded` of /api/v1/health is the RAG index's real size, as it changes. */
import { describe, expect, it } from 'vitest';
import { loadDocumentation } from '../../../server/rag/docs-corpus.js';
import { createRagTestApp } from './rag-app.js';

describe('health reports the RAG index', () => {
  it('chunks_loaded counts the documentation and the indexed posts', async (context) => {
    const t = await createRagTestApp();
    try {
      // Until server/app.ts passes the index to the health routes, health cannot know it.
      if (!t.wiredByApp) context.skip();
      const health = async () =>
        (await t.app.inject({ method: 'GET', url: '/api/v1/health' })).json<{ components: { rag_service: unknown } }>().components
          .rag_service;
      const docs = loadDocumentation().length;
      expect(docs).toBeGreaterThan(50);
      expect(await health()).toEqual({ status: 'ready', chunks_loaded: docs });
      await t.storePost(1, 'Kite surfing in strong wind');
      await t.storePost(2, 'Snow on the mountain pass');
      await t.reindex();
      expect(await health()).toEqual({ status: 'ready', chunks_loaded: docs + 2 });
      expect(t.runtime.index.size).toBe(docs + 2);
    } finally {
      await t.close();
    }
  });
});

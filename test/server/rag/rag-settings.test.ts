/** RECSVC_RAG_* and RECSVC_LLM_* settings. */
import { describe, expect, it } from 'vitest';
import { chatCompletionsUrl, DEFAULT_LLM_MODEL, DEFAULT_LLM_TIMEOUT_MS, readRagSettings } from '../../../server/rag/rag.settings.js';

describe('readRagSettings', () => {
  it('defaults to 5,000 posts and no language model', () => {
    expect(readRagSettings({})).toEqual({ maxIndexedPosts: 5000, llm: undefined });
  });

  it('reads the language model settings', () => {
    expect(
      readRagSettings({
        RECSVC_RAG_MAX_POSTS: '0',
        RECSVC_LLM_URL: 'https://llm.example/v1/',
        RECSVC_LLM_MODEL: 'llama3',
        RECSVC_LLM_API_KEY: 'k',
        RECSVC_LLM_TIMEOUT_MS: '5000',
      }),
    ).toEqual({
      maxIndexedPosts: 0,
      llm: { url: 'https://llm.example/v1/chat/completions', model: 'llama3', apiKey: 'k', timeoutMs: 5000 },
    });
    expect(readRagSettings({ RECSVC_LLM_URL: 'http://127.0.0.1:8080/v1/chat/completions' }).llm).toEqual({
      url: 'http://127.0.0.1:8080/v1/chat/completions',
      model: DEFAULT_LLM_MODEL,
      apiKey: undefined,
      timeoutMs: DEFAULT_LLM_TIMEOUT_MS,
    });
  });

  it.each([
    [{ RECSVC_RAG_MAX_POSTS: '-1' }, /RECSVC_RAG_MAX_POSTS/],
    [{ RECSVC_RAG_MAX_POSTS: '100001' }, /RECSVC_RAG_MAX_POSTS/],
    [{ RECSVC_LLM_URL: 'ftp://x/v1' }, /RECSVC_LLM_URL/],
    [{ RECSVC_LLM_URL: 'not a url' }, /RECSVC_LLM_URL/],
    [{ RECSVC_LLM_URL: 'https://user:pw@llm.example/v1' }, /without credentials/],
    [{ RECSVC_LLM_URL: 'https://llm.example/v1', RECSVC_LLM_TIMEOUT_MS: '50' }, /RECSVC_LLM_TIMEOUT_MS/],
  ])('refuses %j', (env, message) => {
    expect(() => readRagSettings(env)).toThrow(message);
  });

  it('appends /chat/completions to a base URL only', () => {
    expect(chatCompletionsUrl('http://h:1/v1')).toBe('http://h:1/v1/chat/completions');
    expect(chatCompletionsUrl('http://h:1/v1/chat/completions/')).toBe('http://h:1/v1/chat/completions');
    expect(chatCompletionsUrl('http://h:1')).toBe('http://h:1/chat/completions');
  });
});

/** Settings of the RAG endpoint: the bound on indexed posts, and the optional language model. */
import { InputError } from '../../src/errors.js';

/** An OpenAI-compatible chat completions endpoint. */
export interface LlmSettings {
  /** `…/chat/completions`, or a base URL (`…/v1`) it is appended to. */
  url: string;
  model: string;
  apiKey: string | undefined;
  /** The whole call (connect, answer) must finish within this, else the extractive answer is given. */
  timeoutMs: number;
}

export interface RagSettings {
  /** Most recent stored posts indexed (0: documentation only); bounds the index's memory. */
  maxIndexedPosts: number;
  /** Absent: answers are extractive. */
  llm: LlmSettings | undefined;
}

export const DEFAULT_RAG_SETTINGS: RagSettings = { maxIndexedPosts: 5_000, llm: undefined };
export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';
export const DEFAULT_LLM_TIMEOUT_MS = 20_000;

type Env = Record<string, string | undefined>;

function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new InputError(`${name} must be a whole number from ${min} to ${max}, got "${text}"`);
  }
  return Number(text);
}

/** The chat completions URL of RECSVC_LLM_URL (http or https, no credentials in it). */
export function chatCompletionsUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InputError(`RECSVC_LLM_URL must be an http(s) URL, got "${text}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    throw new InputError(`RECSVC_LLM_URL must be an http(s) URL without credentials (use RECSVC_LLM_API_KEY), got "${text}"`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/chat/completions') ? path : `${path}/chat/completions`;
  return url.toString();
}

/**
 * RECSVC_RAG_MAX_POSTS, and RECSVC_LLM_URL / RECSVC_LLM_MODEL / RECSVC_LLM_API_KEY /
 * RECSVC_LLM_TIMEOUT_MS; InputError (exit 2 at start) on a bad value.
 */
export function readRagSettings(env: Env = process.env): RagSettings {
  const maxIndexedPosts = wholeNumber(env, 'RECSVC_RAG_MAX_POSTS', DEFAULT_RAG_SETTINGS.maxIndexedPosts, 0, 100_000);
  const url = env.RECSVC_LLM_URL;
  if (url === undefined || url === '') return { maxIndexedPosts, llm: undefined };
  return {
    maxIndexedPosts,
    llm: {
      url: chatCompletionsUrl(url),
      model: env.RECSVC_LLM_MODEL || DEFAULT_LLM_MODEL,
      apiKey: env.RECSVC_LLM_API_KEY || undefined,
      timeoutMs: wholeNumber(env, 'RECSVC_LLM_TIMEOUT_MS', DEFAULT_LLM_TIMEOUT_MS, 100, 300_000),
    },
  };
}

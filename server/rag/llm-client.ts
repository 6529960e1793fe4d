/**
 * One call to an OpenAI-compatible chat completions endpoint (RECSVC_LLM_URL): the whole
 * call bounded by the timeout, the answer read up to a size bound. Any failure is an
 * LlmError saying what went wrong, for the extractive fallback to report.
 */
import { request } from 'undici';
import type { ChatMessage } from '../../src/rag/answer.js';
import type { LlmSettings } from './rag.settings.js';

/** The most bytes of a model's answer read, and characters of its text kept. */
const MAX_RESPONSE_BYTES = 1_048_576;
const MAX_ANSWER_CHARS = 8_000;
/** Tokens a model may write: a few paragraphs. */
const MAX_TOKENS = 500;

export class LlmError extends Error {}

async function readBounded(body: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of body) {
    size += part.length;
    if (size > MAX_RESPONSE_BYTES) throw new LlmError(`the language model's response exceeded ${MAX_RESPONSE_BYTES} bytes`);
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

function answerText(json: unknown): string {
  const content = (json as { choices?: Array<{ message?: { content?: unknown } }> } | null)?.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || content.trim() === '') throw new LlmError('the language model returned no answer text');
  return content.trim().slice(0, MAX_ANSWER_CHARS);
}

/** The model's answer to `messages`; LlmError on a timeout, a non-2xx status or a malformed body. */
export async function completeChat(settings: LlmSettings, messages: readonly ChatMessage[]): Promise<string> {
  const signal = AbortSignal.timeout(settings.timeoutMs);
  try {
    const response = await request(settings.url, {
      method: 'POST',
      signal,
      headers: {
        'content-type': 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: settings.model, messages, temperature: 0, max_tokens: MAX_TOKENS }),
    });
    const text = await readBounded(response.body);
    if (response.statusCode < 200 || response.statusCode > 299) {
      throw new LlmError(`the language model answered HTTP ${response.statusCode}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new LlmError('the language model answered with invalid JSON');
    }
    return answerText(json);
  } catch (error) {
    if (error instanceof LlmError) throw error;
    if (signal.aborted) throw new LlmError(`the language model did not answer within ${settings.timeoutMs} ms`);
    throw new LlmError(`the language model could not be reached (${(error as Error).message})`);
  }
}

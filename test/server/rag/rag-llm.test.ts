/**
 * The language-model path against a small OpenAI-compatible server on 127.0.0.1: a cited
 * answer when it answers, the extractive fallback (flagged, with the reason) when it
 * fails, times out or answers nonsense.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRagTestApp, ragQuery, type RagTestApp } from './rag-app.js';

type Mode = 'answer' | 'error' | 'hang' | 'garbage' | 'empty';

interface ChatRequest {
  authorization: string | undefined;
  url: string | undefined;
  body: { model: string; messages: Array<{ role: string; content: string }> };
}

/** A chat completions endpoint whose behaviour the test switches. */
class FakeChatServer {
  mode: Mode = 'answer';
  readonly requests: ChatRequest[] = [];
  private readonly server: Server = createServer((request, response) => void this.handle(request, response));

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const part of request) text += String(part);
    this.requests.push({ authorization: request.headers.authorization, url: request.url, body: JSON.parse(text) as ChatRequest['body'] });
    if (this.mode === 'hang') return;
    if (this.mode === 'error') {
      response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
      return;
    }
    if (this.mode === 'garbage') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('<html>not json</html>');
      return;
    }
    const content =
      this.mode === 'empty' ? '' : 'Each user is bucketed by the MD5 of user and experiment ids [1], never reassigned [1] [9].';
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(
        JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] }),
      );
  }
}

interface Body {
  data: {
    answer: string;
    answer_mode: string;
    model?: string;
    fallback_reason?: string;
    citations: number[];
    chunks: Array<{ text: string }>;
  };
}

describe('RAG with a language model', () => {
  const chat = new FakeChatServer();
  let t: RagTestApp;
  const question = { query: 'How is a user assigned to a variant?', limit: 3 };

  beforeAll(async () => {
    const url = await chat.listen();
    t = await createRagTestApp({
      settings: { llm: { url: `${url}/chat/completions`, model: 'tiny-test-model', apiKey: 'sk-test', timeoutMs: 300 } },
    });
  });
  afterAll(async () => {
    await t.close();
    await chat.close();
  });
  beforeEach(() => {
    chat.requests.length = 0;
  });

  it('answers with the model from the numbered chunks, citing them', async () => {
    chat.mode = 'answer';
    const response = await ragQuery(t.app, t.readHeaders, question);
    expect(response.statusCode).toBe(200);
    const { data } = response.json<Body>();
    expect(data).toMatchObject({ answer_mode: 'generated', model: 'tiny-test-model', citations: [1] });
    expect(data.answer).toContain('MD5');
    expect(data.fallback_reason).toBeUndefined();
    const sent = chat.requests[0];
    expect(sent?.url).toBe('/v1/chat/completions');
    expect(sent?.authorization).toBe('Bearer sk-test');
    expect(sent?.body.model).toBe('tiny-test-model');
    const prompt = sent?.body.messages.find((m) => m.role === 'user')?.content ?? '';
    expect(prompt).toContain('[1] docs/experiments.md — Experiments (A/B tests on ranking algorithms) > Assignment and enrolment');
    expect(prompt).toContain(data.chunks[0]?.text);
    expect(prompt).toContain('[3] ');
    expect(prompt).toContain('Question: How is a user assigned to a variant?');
  });

  it.each([
    ['error', /HTTP 500/],
    ['hang', /did not answer within 300 ms/],
    ['garbage', /invalid JSON/],
    ['empty', /no answer text/],
  ] as const)('falls back to the extractive answer, flagged, when the model %s', async (mode, reason) => {
    chat.mode = mode;
    const response = await ragQuery(t.app, t.readHeaders, question);
    expect(response.statusCode).toBe(200);
    const { data } = response.json<Body>();
    expect(data.answer_mode).toBe('extractive_fallback');
    expect(data.fallback_reason).toMatch(reason);
    expect(data.answer).toMatch(/^Extractive summary \(the language model failed\)/);
    expect(data.answer).toContain('MD5');
    expect(data.model).toBeUndefined();
    expect(chat.requests).toHaveLength(1);
  });

  it('falls back when the model cannot be reached at all', async () => {
    const down = await createRagTestApp({
      settings: { llm: { url: 'http://127.0.0.1:9/v1/chat/completions', model: 'm', apiKey: undefined, timeoutMs: 2_000 } },
    });
    try {
      const { data } = (await ragQuery(down.app, down.readHeaders, question)).json<Body>();
      expect(data.answer_mode).toBe('extractive_fallback');
      expect(data.fallback_reason).toMatch(/could not be reached/);
    } finally {
      await down.close();
    }
  });
});

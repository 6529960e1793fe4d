/**
 * Answers a question from the corpus: the best chunks by BM25, then an answer written by
 * the configured language model from them (numbered citations), or quoted from them when
 * no model is configured or the model fails (the answer says which).
 */
import type { FastifyBaseLogger } from 'fastify';
import { answerMessages, citationsIn, extractiveSummary, NO_MATCH_ANSWER } from '../../src/rag/answer.js';
import type { ScoredChunk } from '../../src/rag/chunk.types.js';
import type { RagResult } from '../../src/rag/rag.schema.js';
import { completeChat, LlmError } from './llm-client.js';
import type { RagIndex } from './rag-index.js';
import type { LlmSettings } from './rag.settings.js';

const EXTRACTIVE_NOTE = 'Extractive summary (no language model is configured), quoted from the passages below:';
const FALLBACK_NOTE = 'Extractive summary (the language model failed), quoted from the passages below:';

type WireChunk = RagResult['chunks'][number];

function wireChunk(chunk: ScoredChunk, i: number): WireChunk {
  const source =
    chunk.source.type === 'doc'
      ? { type: 'doc' as const, path: chunk.source.path, heading: chunk.source.heading }
      : { type: 'post' as const, post_id: chunk.source.post_id, url: chunk.source.url, account_id: chunk.source.account_id };
  return { citation: i + 1, id: chunk.id, text: chunk.text, score: chunk.score, source };
}

export class RagService {
  constructor(
    private readonly index: RagIndex,
    private readonly llm: LlmSettings | undefined,
    private readonly log: FastifyBaseLogger,
  ) {}

  async query(question: string, limit: number): Promise<RagResult> {
    const found = this.index.query(question, limit);
    const chunks = found.map(wireChunk);
    if (found.length === 0) return { query: question, answer: NO_MATCH_ANSWER, answer_mode: 'extractive', citations: [], chunks };
    if (this.llm) {
      try {
        const answer = await completeChat(this.llm, answerMessages(question, found));
        return {
          query: question,
          answer,
          answer_mode: 'generated',
          model: this.llm.model,
          citations: citationsIn(answer, found.length),
          chunks,
        };
      } catch (error) {
        if (!(error instanceof LlmError)) throw error;
        this.log.warn({ err: error }, 'RAG: language model failed, answering extractively');
        return this.extractive(question, found, chunks, FALLBACK_NOTE, error.message);
      }
    }
    return this.extractive(question, found, chunks, EXTRACTIVE_NOTE);
  }

  private extractive(question: string, found: ScoredChunk[], chunks: WireChunk[], note: string, reason?: string): RagResult {
    const summary = extractiveSummary(question, found);
    return {
      query: question,
      answer: `${note} ${summary}`,
      answer_mode: reason === undefined ? 'extractive' : 'extractive_fallback',
      ...(reason === undefined ? {} : { fallback_reason: reason }),
      citations: citationsIn(summary, found.length),
      chunks,
    };
  }
}

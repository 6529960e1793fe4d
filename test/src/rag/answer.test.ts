import { describe, expect, it } from 'vitest';
import { answerMessages, citationsIn, extractiveSummary, NO_MATCH_ANSWER, sentencesOf } from '../../../src/rag/answer.js';
import type { Chunk } from '../../../src/rag/chunk.types.js';

function doc(id: string, text: string, heading = 'H'): Chunk {
  return { id, title: heading, text, source: { type: 'doc', path: 'README.md', heading } };
}

describe('sentencesOf', () => {
  it('joins wrapped prose, keeps list items and table rows apart, drops emphasis, rules and fences', () => {
    const text =
      '**Assignment** is by MD5. Buckets are\nconsecutive ranges.\n\n- first item\n- second item\n\n| a | b |\n|---|---|\n| 1 | 2 |\n```\ncode\n```';
    expect(sentencesOf(text)).toEqual([
      'Assignment is by MD5.',
      'Buckets are consecutive ranges.',
      'first item',
      'second item',
      '| a | b |',
      '| 1 | 2 |',
      'code',
    ]);
  });
});

describe('extractiveSummary', () => {
  const chunks = [
    doc('a', 'Experiments have variants. A user is assigned to a variant by the MD5 bucket rule. Nothing else here.'),
    doc('b', 'Rate limits are per caller. Variant assignment never changes once recorded.'),
    doc('c', 'Unrelated text about tokens.'),
  ];

  it('quotes the sentences sharing the most question terms, in passage order, each cited', () => {
    const answer = extractiveSummary('How is a user assigned to a variant?', chunks);
    expect(answer).toBe(
      'Experiments have variants. [1] A user is assigned to a variant by the MD5 bucket rule. [1] Variant assignment never changes once recorded. [2]',
    );
  });

  it('says so when there is nothing to quote', () => {
    expect(extractiveSummary('anything', [])).toBe(NO_MATCH_ANSWER);
  });

  it('quotes one sentence at least even without shared terms, and never more than three', () => {
    expect(extractiveSummary('zebra', chunks)).toBe('Experiments have variants. [1]');
    const many = [doc('m', Array.from({ length: 10 }, (_, i) => `Variant sentence ${i}.`).join(' '))];
    expect(extractiveSummary('variant', many).match(/\[1\]/g)).toHaveLength(3);
  });
});

describe('answerMessages', () => {
  it('numbers the passages from 1 with their sources, then asks the question', () => {
    const post: Chunk = {
      id: 'post:9',
      title: '',
      text: 'Bread post',
      source: { type: 'post', post_id: '9', url: 'https://x/9', account_id: 'a' },
    };
    const [system, user] = answerMessages('Why?', [doc('a', 'Alpha text', 'Top > Sub'), post]);
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('[2]');
    expect(user?.content).toBe(
      'Passages:\n\n[1] README.md — Top > Sub\nAlpha text\n\n[2] post 9 (https://x/9)\nBread post\n\nQuestion: Why?',
    );
  });
});

describe('citationsIn', () => {
  it('lists the cited passage numbers that exist, once each', () => {
    expect(citationsIn('See [2] and [1], again [2]; not [0] nor [7].', 3)).toEqual([1, 2]);
  });
});

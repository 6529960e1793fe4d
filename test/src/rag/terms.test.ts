import { describe, expect, it } from 'vitest';
import { ragTerms, stem } from '../../../src/rag/terms.js';

describe('stem', () => {
  it.each([
    [['assigned', 'assignment', 'assignments', 'assigning', 'assign'], 'assign'],
    [['variant', 'variants'], 'variant'],
    [['ranking', 'ranked', 'ranks'], 'rank'],
    [['user', 'users'], 'user'],
    [['queries', 'query'], 'query'],
    [['class', 'classes'], 'class'],
    [['limits', 'limited', 'limit'], 'limit'],
  ])('%j meet on %s', (words, expected) => {
    for (const word of words) expect(stem(word)).toBe(expected);
  });

  it('keeps at least three letters', () => {
    expect(stem('used')).toBe('used');
    expect(stem('bus')).toBe('bus');
  });
});

describe('ragTerms', () => {
  it('drops stop words and short words, stems the rest', () => {
    expect(ragTerms('How is a user assigned to the Variants?')).toEqual(['user', 'assign', 'variant']);
  });
});

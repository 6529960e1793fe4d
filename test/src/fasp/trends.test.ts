/**
 * The trends capability's pure rules. Language examples from RFC 4647 section 3.3.1 (basic
 * filtering): the range "de-de" matches "de-DE-1996" but neither "de-Deva" nor "de-Latn-DE".
 */
import { describe, expect, it } from 'vitest';
import { isLanguageRange, languageMatches, trendRank } from '../../../src/fasp/index.js';

describe('RFC 4647 basic filtering', () => {
  it('matches the RFC examples, ignoring case, and * matches every tagged post', () => {
    expect(languageMatches('de-de', 'de-DE-1996')).toBe(true);
    expect(languageMatches('de-de', 'de-Deva')).toBe(false);
    expect(languageMatches('de-de', 'de-Latn-DE')).toBe(false);
    expect(languageMatches('en', 'en-GB')).toBe(true);
    expect(languageMatches('en', 'eng')).toBe(false);
    expect(languageMatches('*', 'fr')).toBe(true);
    expect(languageMatches('en', null)).toBe(false);
    expect(isLanguageRange('zh-Hant-TW')).toBe(true);
    expect(isLanguageRange('en_US')).toBe(false);
  });
});

describe('trend ranks', () => {
  it('are integers 1-100, never decreasing in the score, on one absolute scale (8 ranks 50)', () => {
    expect(trendRank(8)).toBe(50);
    expect(trendRank(0)).toBe(1);
    expect(trendRank(Number.NaN)).toBe(1);
    expect(trendRank(1e9)).toBe(100);
    let previous = 0;
    for (let score = 0.01; score < 2000; score *= 1.3) {
      const rank = trendRank(score);
      expect(Number.isInteger(rank) && rank >= 1 && rank <= 100).toBe(true);
      expect(rank).toBeGreaterThanOrEqual(previous);
      previous = rank;
    }
  });
});

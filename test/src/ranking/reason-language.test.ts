/** Accept-Language negotiation for reasons, and the setting winning over the header. */
import { describe, expect, it } from 'vitest';
import { chooseReasonLanguage, negotiateReasonLanguage, parseAcceptLanguage } from '../../../src/ranking/reason-language.js';

describe('Accept-Language', () => {
  it('orders ranges by q, keeping header order for equal q, and skips malformed entries', () => {
    expect(parseAcceptLanguage('fr;q=0.5, de-AT, en;q=0.5, ;;, x_y, es;q=2')).toEqual([
      { range: 'de-at', q: 1 },
      { range: 'fr', q: 0.5 },
      { range: 'en', q: 0.5 },
    ]);
    expect(parseAcceptLanguage(undefined)).toEqual([]);
  });

  it.each([
    ['de', 'de'],
    ['fr-CA,fr;q=0.9,en;q=0.8', 'fr'],
    ['ES', 'es'],
    ['ja, de;q=0.3', 'de'],
    ['en;q=0.4, de;q=0.8, fr;q=0.6', 'de'],
    ['de;q=0.5, fr;q=0.5', 'de'],
    ['*', 'en'],
    ['fr;q=0, *', 'en'],
  ])('%s → %s', (header, expected) => {
    expect(negotiateReasonLanguage(header)).toBe(expected);
  });

  it.each([['ja'], ['pt-BR, zh;q=0.5'], ['de;q=0'], ['de;q=0, de-CH'], [''], ['garbage!!']])('%s names no supported language', (header) => {
    expect(negotiateReasonLanguage(header)).toBeUndefined();
  });

  it('the user setting wins over the header; without either, English', () => {
    expect(chooseReasonLanguage('es', 'de')).toBe('es');
    expect(chooseReasonLanguage(null, 'de')).toBe('de');
    expect(chooseReasonLanguage(null, 'ja')).toBe('en');
    expect(chooseReasonLanguage(undefined, undefined)).toBe('en');
  });
});

import { describe, expect, it } from 'vitest';
import { htmlToText, termCounts, tokenize, TAG_TERM_WEIGHT } from '../../../src/ranking/index.js';

describe('htmlToText', () => {
  it('turns a Mastodon status body into plain text', () => {
    const html =
      '<p>Hello <a href="https://x.example/@bob" class="u-url mention">@<span>bob</span></a> &amp; friends</p><p>line&#39;s two<br />three &#x1F600;</p>';
    expect(htmlToText(html)).toBe("Hello @bob & friends\nline's two\nthree 😀");
  });

  it('decodes every named reference, so terms are words and not entity debris', () => {
    // The hand-written table knew six names: `caf&eacute;` stayed as is and tokenised into "caf" and "eacute".
    expect(htmlToText('<p>caf&eacute; na&iuml;ve &hellip; &euro;5&nbsp;&nbsp;now &lt;p&gt;</p>')).toBe('café naïve … €5 now <p>');
    expect(tokenize(htmlToText('Un caf&eacute; cr&egrave;me'))).toEqual(['café', 'crème']);
  });
});

describe('tokenize', () => {
  it('keeps lowercase words of 3+ characters, without stop words or numbers', () => {
    expect(tokenize('The Rust compiler is SO fast, and 2024 was its year: Übergröße!')).toEqual([
      'rust',
      'compiler',
      'fast',
      'year',
      'übergröße',
    ]);
  });

  it('counts tags as their own heavier terms', () => {
    const counts = termCounts('rust rust', ['Rust']);
    expect(counts.get('rust')).toBe(2);
    expect(counts.get('#rust')).toBe(TAG_TERM_WEIGHT);
  });
});

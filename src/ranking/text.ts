/**
 * Text handling for the semantic feature: HTML to plain text, and the tokeniser whose
 * terms make up the TF-IDF vectors. Tags become terms of their own (`#tag`), counted
 * more than words because an author chose them to say what the post is about.
 */
import { decodeHTML } from 'entities';

/** How much one tag counts against one occurrence of a word. */
export const TAG_TERM_WEIGHT = 3;

/** Common words that say nothing about a post's subject (plus URL debris). */
const STOP_WORDS = new Set(
  (
    'the and for are but not you all any can had her was one our out day get has him his how man new now old ' +
    'see two way who boy did its let put say she too use that with have this will your from they know want been ' +
    'good much some time very when come here just like long make many more only over such take than them well ' +
    'were what which while would there their about after again also back because before being could doing down ' +
    'each even every into most other should still these those through under until where why yes yet really ' +
    'http https www com org net html amp nbsp quot'
  ).split(' '),
);

/**
 * Plain text of a Mastodon status' HTML: block ends and `<br>` become newlines, other
 * tags are dropped, and character references are decoded by the `entities` package
 * (all of HTML5's named references, such as `&eacute;`, not only a handful), after the
 * tags are gone so that an escaped `&lt;p&gt;` stays text. No-break spaces count as spaces.
 */
export function htmlToText(html: string): string {
  const withoutTags = html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|blockquote|h[1-6])>/gi, '\n')
    .replace(/<[^>]*>/g, '');
  return decodeHTML(withoutTags)
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .trim();
}

/** Lowercase words of at least 3 letters or digits, without stop words or bare numbers. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}_]+/u)) {
    if (raw.length < 3 || STOP_WORDS.has(raw) || /^\d+$/.test(raw)) continue;
    out.push(raw);
  }
  return out;
}

/** Term frequencies of a post: its words, plus `#tag` terms weighted by `TAG_TERM_WEIGHT`. */
export function termCounts(text: string, tags: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of tokenize(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  for (const tag of new Set(tags)) {
    const term = tagTerm(tag);
    counts.set(term, (counts.get(term) ?? 0) + TAG_TERM_WEIGHT);
  }
  return counts;
}

/** A tag as stored and compared everywhere: trimmed, without a leading `#`, lowercase. */
export function normaliseTag(tag: string): string {
  return tag.trim().replace(/^#/, '').toLowerCase();
}

/** The vocabulary term of a tag: `#` plus the normalised tag, so it never collides with a word. */
export function tagTerm(tag: string): string {
  return `#${normaliseTag(tag)}`;
}

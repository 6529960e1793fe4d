/**
 * The terms the RAG index and its queries share: the ranking tokeniser's words (stop words
 * and short words dropped), reduced by a light suffix-stripping stemmer so that "assigned",
 * "assignment" and "assigning" meet on one term.
 */
import { tokenize } from '../ranking/text.js';

/** Derivational and inflectional endings, longest first; a stem keeps at least 3 letters. */
const SUFFIXES = ['ization', 'ations', 'ation', 'ments', 'ment', 'ness', 'ings', 'ing', 'edly', 'ed', 'ly', 'er', 'ure', 'ity'];

function dropPlural(word: string): string {
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  return word.endsWith('s') && word.length > 3 ? word.slice(0, -1) : word;
}

/** The stem of one lowercase word (plural, then one suffix, then a final `e`, keeping 3 letters at least). */
export function stem(word: string): string {
  let out = dropPlural(word);
  const suffix = SUFFIXES.find((s) => out.endsWith(s) && out.length - s.length >= 3);
  if (suffix) out = out.slice(0, -suffix.length);
  if (out.endsWith('e') && out.length > 3) out = out.slice(0, -1);
  return out;
}

/** The stemmed terms of a text, in order (repeats kept: BM25 counts them). */
export function ragTerms(text: string): string[] {
  return tokenize(text).map(stem);
}

/**
 * Which language a caller's reasons are written in. The order: the user's
 * `reason_language` setting, else the best supported language of `Accept-Language`
 * (RFC 9110 §12.5.4: highest q first, equal q in header order, q=0 means "not this one",
 * a region such as `de-AT` matches its language `de`, `*` means any, i.e. the default),
 * else English.
 */
import { DEFAULT_REASON_LANGUAGE, isReasonLanguage, type ReasonLanguage } from './reason-text.js';

/** One entry of an `Accept-Language` header. */
export interface LanguageRange {
  /** Lowercased range, e.g. `de-at` or `*`. */
  readonly range: string;
  /** Quality in [0, 1]. */
  readonly q: number;
}

/** Headers longer than this are read no further (a browser sends well under 200 characters). */
const MAX_HEADER_CHARS = 1024;
const RANGE = /^(\*|[a-z]{1,8}(-[a-z0-9]{1,8})*)$/;
const QUALITY = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/;

/** The ranges of an `Accept-Language` header, best first; malformed entries are skipped. */
export function parseAcceptLanguage(header: string | undefined): LanguageRange[] {
  if (header === undefined) return [];
  const ranges: Array<LanguageRange & { index: number }> = [];
  header
    .slice(0, MAX_HEADER_CHARS)
    .split(',')
    .forEach((entry, index) => {
      const [rangePart = '', ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
      if (!RANGE.test(rangePart)) return;
      let q = 1;
      for (const parameter of parameters) {
        const quality = QUALITY.exec(parameter.replace(/\s+/g, ''));
        if (!quality) return;
        q = Number(quality[1]);
      }
      ranges.push({ range: rangePart, q, index });
    });
  return ranges.sort((a, b) => b.q - a.q || a.index - b.index).map(({ range, q }) => ({ range, q }));
}

/** The supported language an `Accept-Language` header prefers, or undefined when it names none. */
export function negotiateReasonLanguage(header: string | undefined): ReasonLanguage | undefined {
  const refused = new Set<string>();
  const ranges = parseAcceptLanguage(header);
  for (const { range, q } of ranges) if (q === 0) refused.add(primary(range));
  for (const { range, q } of ranges) {
    if (q === 0) continue;
    if (range === '*') return refused.has(DEFAULT_REASON_LANGUAGE) ? undefined : DEFAULT_REASON_LANGUAGE;
    const language = primary(range);
    if (isReasonLanguage(language) && !refused.has(language)) return language;
  }
  return undefined;
}

/** The language of reasons: the user's setting wins, then the header, then English. */
export function chooseReasonLanguage(setting: ReasonLanguage | null | undefined, acceptLanguage: string | undefined): ReasonLanguage {
  return setting ?? negotiateReasonLanguage(acceptLanguage) ?? DEFAULT_REASON_LANGUAGE;
}

function primary(range: string): string {
  return range.split('-')[0] ?? range;
}

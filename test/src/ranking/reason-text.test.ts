/** The one table of reason sentences: rendering, reading English back, and localising. */
import { describe, expect, it } from 'vitest';
import { explainRanking } from '../../../src/ranking/reasons.js';
import {
  localiseReasonText,
  parseEnglishReason,
  REASON_LANGUAGES,
  REASON_TEXTS,
  renderReason,
  type ReasonMessage,
} from '../../../src/ranking/reason-text.js';

const MESSAGES: ReasonMessage[] = [
  { key: 'trending_cold_start', params: { tag: 'caturday' } },
  { key: 'popular_cold_start' },
  { key: 'author_interaction', params: { username: 'alice' } },
  { key: 'semantic_match_about', params: { term: '“rust”' } },
  { key: 'semantic_match' },
  { key: 'trending', params: { tag: 'caturday' } },
  { key: 'popular' },
  { key: 'fresh' },
];

describe('reason sentences', () => {
  it('every language has every sentence, with the same slots as English', () => {
    const slots = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const language of REASON_LANGUAGES) {
      expect(Object.keys(REASON_TEXTS[language])).toEqual(Object.keys(REASON_TEXTS.en));
      for (const [key, template] of Object.entries(REASON_TEXTS[language])) {
        expect(slots(template), `${language}.${key}`).toEqual(slots(REASON_TEXTS.en[key as keyof typeof REASON_TEXTS.en]));
      }
    }
  });

  it('renders the sentences the ranker has always written in English', () => {
    expect(renderReason({ key: 'author_interaction', params: { username: 'alice' } })).toBe('Because you often engage with @alice');
    expect(renderReason({ key: 'trending_cold_start', params: { tag: 'cats' } })).toBe(
      "Trending now: #cats — we're still learning what you like",
    );
    expect(renderReason({ key: 'semantic_match_about', params: { term: '#rust' } })).toBe('Similar to posts you liked about #rust');
  });

  it('reads every English sentence back into its message (cold-start trending is not mistaken for trending)', () => {
    for (const message of MESSAGES) expect(parseEnglishReason(renderReason(message))).toEqual(message);
  });

  it('localises each sentence into German, French and Spanish with its parameters', () => {
    const english = renderReason({ key: 'author_interaction', params: { username: 'bob' } });
    expect(localiseReasonText(english, 'de')).toBe('Weil du oft mit @bob interagierst');
    expect(localiseReasonText(english, 'fr')).toBe('Parce que vous interagissez souvent avec @bob');
    expect(localiseReasonText(english, 'es')).toBe('Porque sueles interactuar con @bob');
    const trending = "Trending now: #cats — we're still learning what you like";
    expect(localiseReasonText(trending, 'de')).toBe('Gerade im Trend: #cats — wir lernen noch, was dir gefällt');
    for (const message of MESSAGES) {
      for (const language of REASON_LANGUAGES)
        expect(localiseReasonText(renderReason(message), language)).toBe(renderReason(message, language));
    }
  });

  it('leaves text the table did not write, and English, as it is', () => {
    expect(localiseReasonText('Hand-picked by the editors', 'de')).toBe('Hand-picked by the editors');
    expect(localiseReasonText('Popular across the network', 'en')).toBe('Popular across the network');
  });

  it('the ranker writes its reasons from the table', () => {
    const post = { id: '1', accountId: 'a', accountUsername: 'alice', tags: [], text: '', createdAtMs: 0 } as never;
    const features = { author_preference: 1, content_engagement: 0, recency: 0, semantic_similarity: 0, collaborative: 0 };
    const weights = { author_preference: 1, content_engagement: 0, recency: 0, semantic_similarity: 0 };
    const reason = explainRanking(post, features, weights, { coldStart: false, trendingTag: undefined, semanticTerm: undefined });
    expect(reason).toEqual({
      reasonCode: 'AUTHOR_INTERACTION',
      reasonText: renderReason({ key: 'author_interaction', params: { username: 'alice' } }),
    });
  });
});

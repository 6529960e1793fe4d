/**
 * The one table of reason sentences (`recommendation_reason`, `reason_string`, the
 * seamless `reason`), in every language the service speaks. The ranker writes the English
 * sentence (./reasons.ts renders it from here); a response in another language is
 * localised at the wire by `localiseReasonText`, which reads the English sentence back
 * through the same templates. So every cache (ranked lists, status JSON) holds English
 * only and can never hand one caller's language to another.
 */

/** Languages of reason text; English first (the fallback). */
export const REASON_LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type ReasonLanguage = (typeof REASON_LANGUAGES)[number];

/** The language when neither the user's setting nor `Accept-Language` names a supported one. */
export const DEFAULT_REASON_LANGUAGE: ReasonLanguage = 'en';

/** True for a supported reason language code. */
export function isReasonLanguage(value: string): value is ReasonLanguage {
  return (REASON_LANGUAGES as readonly string[]).includes(value);
}

/** One kind of reason sentence; parameters fill its `{name}` slots. */
export type ReasonMessageKey =
  | 'trending_cold_start'
  | 'popular_cold_start'
  | 'author_interaction'
  | 'semantic_match_about'
  | 'semantic_match'
  | 'trending'
  | 'popular'
  | 'fresh'
  | 'collaborative_post_about'
  | 'collaborative_post'
  | 'collaborative';

/** A reason sentence before it is put into words: the key and its parameters. */
export interface ReasonMessage {
  readonly key: ReasonMessageKey;
  /** `tag` (without `#`), `username` (without `@`), `term` (already quoted). */
  readonly params?: Readonly<Partial<Record<ReasonParam, string>>>;
}

type ReasonParam = 'tag' | 'username' | 'term';

/**
 * The templates. Order matters for reading English back: a template whose text is a
 * prefix of another's (`trending` of `trending_cold_start`) comes after it.
 */
export const REASON_TEXTS: Readonly<Record<ReasonLanguage, Readonly<Record<ReasonMessageKey, string>>>> = {
  en: {
    trending_cold_start: "Trending now: #{tag} — we're still learning what you like",
    popular_cold_start: "Popular with the community — we're still learning what you like",
    author_interaction: 'Because you often engage with @{username}',
    semantic_match_about: 'Similar to posts you liked about {term}',
    semantic_match: 'Similar to posts you liked',
    trending: 'Trending now: #{tag}',
    popular: 'Popular across the network',
    fresh: 'Fresh from across the network',
    collaborative_post_about: "Liked by people who liked @{username}'s post about #{tag}",
    collaborative_post: "Liked by people who liked @{username}'s post",
    collaborative: 'Liked by people who like what you like',
  },
  de: {
    trending_cold_start: 'Gerade im Trend: #{tag} — wir lernen noch, was dir gefällt',
    popular_cold_start: 'Beliebt in der Community — wir lernen noch, was dir gefällt',
    author_interaction: 'Weil du oft mit @{username} interagierst',
    semantic_match_about: 'Ähnlich wie Beiträge zu {term}, die dir gefallen haben',
    semantic_match: 'Ähnlich wie Beiträge, die dir gefallen haben',
    trending: 'Gerade im Trend: #{tag}',
    popular: 'Beliebt im ganzen Netzwerk',
    fresh: 'Neu aus dem ganzen Netzwerk',
    collaborative_post_about: 'Gefällt Leuten, denen der Beitrag von @{username} über #{tag} gefallen hat',
    collaborative_post: 'Gefällt Leuten, denen der Beitrag von @{username} gefallen hat',
    collaborative: 'Gefällt Leuten, denen gefällt, was dir gefällt',
  },
  fr: {
    trending_cold_start: 'Tendance en ce moment : #{tag} — nous apprenons encore ce que vous aimez',
    popular_cold_start: 'Populaire dans la communauté — nous apprenons encore ce que vous aimez',
    author_interaction: 'Parce que vous interagissez souvent avec @{username}',
    semantic_match_about: 'Semblable à des publications que vous avez aimées sur {term}',
    semantic_match: 'Semblable à des publications que vous avez aimées',
    trending: 'Tendance en ce moment : #{tag}',
    popular: 'Populaire sur tout le réseau',
    fresh: 'Nouveau sur tout le réseau',
    collaborative_post_about: 'Aimé par des personnes qui ont aimé la publication de @{username} sur #{tag}',
    collaborative_post: 'Aimé par des personnes qui ont aimé la publication de @{username}',
    collaborative: 'Aimé par des personnes qui aiment ce que vous aimez',
  },
  es: {
    trending_cold_start: 'Tendencia ahora: #{tag} — todavía estamos aprendiendo lo que te gusta',
    popular_cold_start: 'Popular en la comunidad — todavía estamos aprendiendo lo que te gusta',
    author_interaction: 'Porque sueles interactuar con @{username}',
    semantic_match_about: 'Similar a publicaciones que te gustaron sobre {term}',
    semantic_match: 'Similar a publicaciones que te gustaron',
    trending: 'Tendencia ahora: #{tag}',
    popular: 'Popular en toda la red',
    fresh: 'Novedad de toda la red',
    collaborative_post_about: 'Les gustó a quienes les gustó la publicación de @{username} sobre #{tag}',
    collaborative_post: 'Les gustó a quienes les gustó la publicación de @{username}',
    collaborative: 'Les gustó a quienes les gusta lo mismo que a ti',
  },
};

const SLOT = /\{(tag|username|term)\}/g;

/** The sentence of a reason in a language (English when the language has no table). */
export function renderReason(message: ReasonMessage, language: ReasonLanguage = DEFAULT_REASON_LANGUAGE): string {
  const template = (REASON_TEXTS[language] ?? REASON_TEXTS.en)[message.key];
  return template.replace(SLOT, (_slot, name: ReasonParam) => message.params?.[name] ?? '');
}

/** The English templates as anchored patterns, in table order (see REASON_TEXTS). */
const ENGLISH_PATTERNS: ReadonlyArray<{ key: ReasonMessageKey; pattern: RegExp }> = Object.entries(REASON_TEXTS.en).map(
  ([key, template]) => {
    const source = template
      .split(SLOT)
      .map((part, index) => (index % 2 === 1 ? `(?<${part}>.+)` : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    return { key: key as ReasonMessageKey, pattern: new RegExp(`^${source}$`, 'u') };
  },
);

/** Reads an English reason sentence back into its message; undefined for text the table did not write. */
export function parseEnglishReason(text: string): ReasonMessage | undefined {
  for (const { key, pattern } of ENGLISH_PATTERNS) {
    const match = pattern.exec(text);
    if (match) return match.groups ? { key, params: { ...match.groups } } : { key };
  }
  return undefined;
}

/** The English reason sentence in `language`; text the table did not write is returned as it is. */
export function localiseReasonText(text: string, language: ReasonLanguage): string {
  if (language === 'en') return text;
  const message = parseEnglishReason(text);
  return message === undefined ? text : renderReason(message, language);
}

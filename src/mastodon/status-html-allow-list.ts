/**
 * Mastodon's allow-list for status HTML from other servers, as data: `Sanitize::Config::MASTODON_STRICT`
 * in mastodon/mastodon lib/sanitize_ext/sanitize_config.rb (read at commit 03006bd, the version with
 * `quote-inline`, ruby and MathML annotations), together with what the `sanitize` gem's
 * `Config::DEFAULT` adds to it (elements removed with their contents, elements whose removal leaves
 * a space). src/mastodon/sanitize-status-html.ts applies it; nothing else restates it.
 */

/** Elements kept (with only their allowed attributes). */
export const STATUS_ELEMENTS: readonly string[] = Object.freeze([
  'p',
  'br',
  'span',
  'a',
  'del',
  's',
  'pre',
  'blockquote',
  'code',
  'b',
  'strong',
  'u',
  'i',
  'em',
  'ul',
  'ol',
  'li',
  'ruby',
  'rt',
  'rp',
]);

/** Attributes kept, per element; `*` applies to every kept element. */
export const STATUS_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  '*': ['lang'],
  a: ['href', 'rel', 'class', 'translate'],
  span: ['class', 'translate'],
  ol: ['start', 'reversed'],
  li: ['value'],
  p: ['class'],
});

/** Attributes every kept link gets, replacing whatever it carried. */
export const LINK_ADDED_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({
  rel: 'nofollow noopener',
  target: '_blank',
});

/** URL schemes a link may have; any other scheme, or none (a relative URL), turns the link into its text. */
export const LINK_PROTOCOLS: readonly string[] = Object.freeze([
  'http',
  'https',
  'dat',
  'dweb',
  'ipfs',
  'ipns',
  'ssb',
  'gopher',
  'xmpp',
  'magnet',
  'gemini',
]);

/** Classes kept (on the elements that may carry `class`): microformats, semantic, link formatting, quotes. */
export const STATUS_CLASS_PATTERNS: readonly RegExp[] = Object.freeze([
  /^(h|p|u|dt|e)-/,
  /^(mention|hashtag)$/,
  /^(ellipsis|invisible)$/,
  /^quote-inline$/,
]);

/** The only `translate` value kept. */
export const KEPT_TRANSLATE_VALUE = 'no';

/** Headings become `<p><strong>…</strong></p>`. */
export const HEADING_ELEMENTS: readonly string[] = Object.freeze(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/**
 * Elements removed together with everything inside them (the gem's default `remove_contents`,
 * plus `textarea`, `option` and `template`, whose text sanitize-html treats as raw or hidden).
 */
export const REMOVED_WITH_CONTENTS: readonly string[] = Object.freeze([
  'iframe',
  'math',
  'noembed',
  'noframes',
  'noscript',
  'plaintext',
  'script',
  'style',
  'svg',
  'xmp',
  'textarea',
  'option',
  'template',
]);

/** Removed elements whose contents are set off by a space on each side (the gem's `whitespace_elements`, less the kept ones). */
export const SPACED_ELEMENTS: readonly string[] = Object.freeze([
  'address',
  'article',
  'aside',
  'dd',
  'div',
  'dl',
  'dt',
  'footer',
  'header',
  'hgroup',
  'hr',
  'nav',
  'section',
]);

/** MathML (FEP-dc88) becomes its TeX annotation (`$…$`, `$$…$$` for display="block"), else its plain-text one. */
export const MATH_TEX_ENCODING = 'application/x-tex';
export const MATH_TEXT_ENCODING = 'text/plain';

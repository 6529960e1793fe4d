/**
 * Status HTML from other servers, sanitised the way Mastodon sanitises remote statuses
 * (`Sanitize::Config::MASTODON_STRICT`), with the allow-list in status-html-allow-list.ts.
 *
 * sanitize-html parses (htmlparser2), drops what the lists do not allow and escapes every text
 * and attribute value. Mastodon's transformers run as its hooks: a link whose URL scheme is not
 * allowed (or that has none) becomes its plain text; headings become `<p><strong>`; removed
 * block elements leave a space; MathML becomes its TeX or plain-text annotation. Those three
 * rewrites are emitted as marker elements (names an input cannot produce: any `x-mastodon-*`
 * tag in the input is dropped) and replaced in the output, which holds no `<` outside tags.
 */
import sanitizeHtml from 'sanitize-html';
import {
  HEADING_ELEMENTS,
  KEPT_TRANSLATE_VALUE,
  LINK_ADDED_ATTRIBUTES,
  LINK_PROTOCOLS,
  MATH_TEX_ENCODING,
  MATH_TEXT_ENCODING,
  REMOVED_WITH_CONTENTS,
  SPACED_ELEMENTS,
  STATUS_ATTRIBUTES,
  STATUS_CLASS_PATTERNS,
  STATUS_ELEMENTS,
} from './status-html-allow-list.js';

const MARKER_PREFIX = 'x-mastodon-';
const HEADING_MARKER = `${MARKER_PREFIX}heading`;
const SPACE_MARKER = `${MARKER_PREFIX}space`;
const MATH_MARKER = `${MARKER_PREFIX}math`;
/**
 * A tag that goes while its text stays. It is a marker (allowed, then deleted) rather than a
 * disallowed name: sanitize-html 2.17 remembers a renamed tag by depth and, when the new name is
 * disallowed, never forgets it, so the next element closed at that depth would be closed with
 * the wrong name (an `<a>` left open over the rest of the page).
 */
const UNWRAPPED = `${MARKER_PREFIX}unwrapped`;
/** Stands for `class=""` (Mastodon keeps a class attribute whose classes were all removed; sanitize-html would drop it). */
const EMPTY_CLASS = `${MARKER_PREFIX}empty-class`;

const ELEMENTS = new Set(STATUS_ELEMENTS);
const HEADINGS = new Set(HEADING_ELEMENTS);
const SPACED = new Set(SPACED_ELEMENTS);
const REMOVED = new Set(REMOVED_WITH_CONTENTS);
const PROTOCOLS = new Set(LINK_PROTOCOLS);
const CLASS_CARRIERS = new Set(Object.keys(STATUS_ATTRIBUTES).filter((name) => STATUS_ATTRIBUTES[name]?.includes('class')));

/** What sanitize-html is told: the allow-list plus the markers and the attributes the hooks set. */
const LIBRARY_OPTIONS = Object.freeze({
  allowedTags: [...STATUS_ELEMENTS, HEADING_MARKER, SPACE_MARKER, MATH_MARKER, UNWRAPPED],
  allowedAttributes: Object.fromEntries(
    Object.entries(STATUS_ATTRIBUTES).map(([name, attributes]) => {
      const extra = [...(CLASS_CARRIERS.has(name) ? [EMPTY_CLASS] : []), ...(name === 'a' ? Object.keys(LINK_ADDED_ATTRIBUTES) : [])];
      return [name, [...new Set([...attributes, ...extra])]];
    }),
  ),
  // Mastodon keeps an attribute written with an empty value (`reversed=""`, `lang=""`).
  // (An option of sanitize-html 2.17 that @types/sanitize-html 2.16 does not list.)
  allowedEmptyAttributes: [...new Set([...Object.values(STATUS_ATTRIBUTES).flat(), EMPTY_CLASS])],
  allowedSchemes: [...LINK_PROTOCOLS],
  allowedSchemesByTag: {},
  allowProtocolRelative: false,
  nonTextTags: [...REMOVED_WITH_CONTENTS],
  selfClosing: ['br'],
  disallowedTagsMode: 'discard' as const,
  parseStyleAttributes: false,
  enforceHtmlBoundary: false,
});

/** Sanitize's `REGEX_PROTOCOL` without its leading `\s*`: a URL with leading spaces is not a link (Mastodon's spec says so). */
const SCHEME = /^([^/#]*?)(?::|&#0*58|&#x0*3a)/i;

function isLinkable(href: string | undefined): boolean {
  const scheme = href === undefined ? undefined : SCHEME.exec(href)?.[1];
  return scheme !== undefined && PROTOCOLS.has(scheme.toLowerCase());
}

interface MathAnnotations {
  display: boolean;
  elementChildren: number;
  tex?: string;
  text?: string;
}

interface Annotation {
  encoding: string | undefined;
  text: string;
}

interface OpenElement {
  /** Inside a link being turned into its text: every tag goes. */
  textOnly: boolean;
  math?: MathAnnotations;
  mathRoot?: boolean;
  semantics?: boolean;
  annotation?: Annotation;
}

function unescapeText(escaped: string): string {
  return escaped.replace(/&gt;/g, '>').replace(/&lt;/g, '<').replace(/&amp;/g, '&');
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function mathReplacement(math: MathAnnotations): string {
  if (math.tex !== undefined) return math.display ? `$$${math.tex}$$` : `$${math.tex}$`;
  return math.text ?? '';
}

function keptClasses(value: string): string {
  return value
    .split(/[\t\n\f\r ]+/)
    .filter((name) => name !== '' && STATUS_CLASS_PATTERNS.some((pattern) => pattern.test(name)))
    .join(' ');
}

/** A kept element's attributes after Mastodon's transformers, in their order (sanitize-html then drops the ones not allowed). */
function transformAttributes(name: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Attributes {
  const result: sanitizeHtml.Attributes = {};
  for (const [attribute, value] of Object.entries(attribs)) {
    if (attribute.startsWith(MARKER_PREFIX)) continue;
    if (attribute === 'class' && CLASS_CARRIERS.has(name)) {
      const classes = keptClasses(value);
      if (classes === '') result[EMPTY_CLASS] = '';
      else result.class = classes;
    } else if (attribute !== 'translate' || value === KEPT_TRANSLATE_VALUE) {
      result[attribute] = value;
    }
  }
  if (name === 'a') Object.assign(result, LINK_ADDED_ATTRIBUTES);
  return result;
}

/** One sanitisation: the open elements as htmlparser2 reports them, and the MathML met, in output order. */
class StatusHtmlRun {
  private readonly open: OpenElement[] = [];
  readonly maths: MathAnnotations[] = [];
  /** An element was removed or renamed: the output's structure may not be the one htmlparser2 gave it. */
  reshaped = false;

  onOpenTag(name: string, attribs: sanitizeHtml.Attributes): void {
    const parent = this.open.at(-1);
    const element: OpenElement = { textOnly: parent?.textOnly ?? false };
    if (parent?.math) {
      element.math = parent.math;
      if (parent.mathRoot && ++parent.math.elementChildren === 1 && name === 'semantics') element.semantics = true;
      else if (parent.semantics && name === 'annotation') element.annotation = { encoding: attribs.encoding, text: '' };
      else if (parent.annotation) element.annotation = parent.annotation;
    } else if (name === 'math') {
      element.math = { display: attribs.display === 'block', elementChildren: 0 };
      element.mathRoot = true;
    } else if (name === 'a' && !isLinkable(attribs.href)) {
      element.textOnly = true;
    }
    this.open.push(element);
  }

  onCloseTag(): void {
    const element = this.open.pop();
    const annotation = element?.annotation;
    if (!element?.math || !annotation || this.open.at(-1)?.annotation === annotation) return;
    if (annotation.encoding === MATH_TEX_ENCODING) element.math.tex ??= annotation.text;
    else if (annotation.encoding === MATH_TEXT_ENCODING) element.math.text ??= annotation.text;
  }

  transform(name: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
    const tag = this.transformTag(name, attribs);
    if (tag.tagName !== name || !ELEMENTS.has(name)) this.reshaped = true;
    return tag;
  }

  private transformTag(name: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
    const element = this.open.at(-1);
    if (element?.mathRoot && element.math) {
      this.maths.push(element.math);
      return { tagName: MATH_MARKER, attribs: {} };
    }
    if (element?.math) return { tagName: UNWRAPPED, attribs: {} };
    if (element?.textOnly) return { tagName: REMOVED.has(name) ? name : UNWRAPPED, attribs: {} };
    if (name.startsWith(MARKER_PREFIX)) return { tagName: UNWRAPPED, attribs: {} };
    if (HEADINGS.has(name)) return { tagName: HEADING_MARKER, attribs: transformAttributes(name, attribs) };
    if (SPACED.has(name)) return { tagName: SPACE_MARKER, attribs: {} };
    if (ELEMENTS.has(name)) return { tagName: name, attribs: transformAttributes(name, attribs) };
    return { tagName: name, attribs };
  }

  /** Text inside MathML is not shown; an annotation's is kept for its replacement. */
  filterText(escaped: string): string {
    const element = this.open.at(-1);
    if (!element?.math) return escaped;
    if (element.annotation) element.annotation.text += unescapeText(escaped);
    return '';
  }
}

const UNWRAPPED_TAGS = new RegExp(`</?${UNWRAPPED}>`, 'g');
const MATH_TAGS = new RegExp(`<${MATH_MARKER}></${MATH_MARKER}>`, 'g');
const HEADING_OPENING = new RegExp(`<${HEADING_MARKER}([^>]*)>`, 'g');
const HEADING_CLOSING = new RegExp(`</${HEADING_MARKER}>`, 'g');
const SPACE_TAGS = new RegExp(`</?${SPACE_MARKER}>`, 'g');
/** Inside a tag only: the next `>` comes before any `<` (text and attribute values hold neither unescaped). */
const EMPTY_CLASS_ATTRIBUTE = new RegExp(` ${EMPTY_CLASS}=""(?=[^<]*>)`, 'g');
const BR = /<br([^>]*?) \/>/g;

function replaceMarkers(html: string, maths: readonly MathAnnotations[]): string {
  let math = 0;
  return html
    .replace(UNWRAPPED_TAGS, '')
    .replace(MATH_TAGS, () => {
      const annotations = maths[math++];
      return annotations ? escapeText(mathReplacement(annotations)) : '';
    })
    .replace(HEADING_OPENING, '<p><strong$1>')
    .replace(HEADING_CLOSING, '</strong></p>')
    .replace(SPACE_TAGS, ' ')
    .replace(EMPTY_CLASS_ATTRIBUTE, ' class=""')
    .replace(BR, '<br$1>');
}

function sanitizeOnce(html: string): { html: string; reshaped: boolean } {
  const run = new StatusHtmlRun();
  const sanitized = sanitizeHtml(html, {
    ...LIBRARY_OPTIONS,
    onOpenTag: (name, attribs) => run.onOpenTag(name, attribs),
    onCloseTag: () => run.onCloseTag(),
    transformTags: { '*': (name, attribs) => run.transform(name, attribs) },
    textFilter: (text) => run.filterText(text),
  });
  return { html: replaceMarkers(sanitized, run.maths), reshaped: run.reshaped };
}

/**
 * Sanitises status HTML from another server to Mastodon's allow-list for remote statuses;
 * sanitising the result again changes nothing.
 */
export function sanitizeStatusHtml(html: string): string {
  const first = sanitizeOnce(html);
  // htmlparser2 closes an open `<p>` (or `<li>`, `<rt>`...) only when it is the innermost open
  // element, so one hidden behind a removed element (`<p><font><ul>`) stays open where the
  // output, without the removed one, closes it. Parsed again, the output holds only kept
  // elements and its structure is final. HTML whose elements were all kept needs one pass.
  return first.reshaped ? sanitizeOnce(first.html).html : first.html;
}

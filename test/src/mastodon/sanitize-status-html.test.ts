/**
 * Status HTML from other servers is sanitised to Mastodon's allow-list: Mastodon's own spec
 * cases give the same strings, honest Mastodon HTML comes out as Mastodon serves it, hostile
 * HTML comes out inert, and sanitising twice equals sanitising once.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sanitizeStatusHtml } from '../../../src/mastodon/sanitize-status-html.js';
import { STATUS_ELEMENTS } from '../../../src/mastodon/status-html-allow-list.js';
import { createRandom, randomInt } from '../../../src/random.js';

interface SpecCase {
  name: string;
  input: string;
  expected: string;
}

const SPEC = JSON.parse(readFileSync(new URL('../../fixtures/mastodon/sanitize-strict-spec.json', import.meta.url), 'utf8')) as {
  cases: SpecCase[];
};

const LINK = 'rel="nofollow noopener" target="_blank"';

/**
 * HTML as a Mastodon 4.3+ instance serves a remote status (already through MASTODON_STRICT):
 * the h-card mention, hashtag and shortened-link markup of app/lib/text_formatter.rb with the
 * rel/target the sanitiser adds. Sanitising it again must change nothing.
 */
const HONEST = [
  `<p><span class="h-card" translate="no"><a href="https://fosstodon.org/@alice" class="u-url mention" ${LINK}>@<span>alice</span></a></span> thanks!</p>`,
  `<p>Reading about <a href="https://mastodon.social/tags/rust" class="mention hashtag" ${LINK}>#<span>rust</span></a> and <a href="https://mastodon.social/tags/OpenSource" class="mention hashtag" ${LINK}>#<span>OpenSource</span></a></p>`,
  `<p>Changelog: <a href="https://github.com/example/parser/releases/tag/v2.3.0" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="ellipsis">github.com/example/parser/rele</span><span class="invisible">ases/tag/v2.3.0</span></a></p>`,
  `<p><a href="https://example.com/a" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">example.com/a</span><span class="invisible"></span></a></p>`,
  `<p class="quote-inline">RE: <a href="https://a.example/@b/1" ${LINK}>https://a.example/@b/1</a></p><p>Line one<br>line two</p><p>It's 5 &lt; 6 &amp; 7 &gt; 3</p>`,
  `<p lang="de">Hallo</p><blockquote><p>quoted</p></blockquote><pre><code>let x = 1;</code></pre><ul><li><b>b</b> <i>i</i> <u>u</u> <s>s</s> <del>d</del> <em>em</em> <strong>st</strong></li></ul>`,
  '<p>Check out:</p><ol start="3" reversed=""><li value="5">Foo</li><li>Bar</li></ol>',
];

/** Hostile inputs with the exact output Mastodon's rules give (written out by hand from them). */
const HOSTILE: [string, string, string][] = [
  ['script', '<script>alert(1)</script>hi', 'hi'],
  ['img onerror', '<p><img src=x onerror="alert(1)">hi</p>', '<p>hi</p>'],
  ['iframe', '<iframe src="https://evil.example/"></iframe>hi', 'hi'],
  [
    'object, embed, form',
    '<object data="x"></object><embed src="x"><form action="javascript:x"><input onfocus=x autofocus></form>ok',
    'ok',
  ],
  ['javascript: link', '<a href="javascript:alert(1)">a</a>', 'a'],
  ['upper-case scheme', '<a href="JaVaScRiPt:alert(1)">a</a>', 'a'],
  ['tab inside the scheme', '<a href="jav&#x09;ascript:alert(1)">a</a>', 'a'],
  ['newline inside the scheme', '<a href="java\nscript:alert(1)">a</a>', 'a'],
  ['entity-encoded letters', '<a href="&#106;avascript:alert(1)">a</a>', 'a'],
  ['entity-encoded colon', '<a href="javascript&colon;alert(1)">a</a>', 'a'],
  ['control character first', '<a href="&#x01;javascript:alert(1)">a</a>', 'a'],
  ['data: link', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">a</a>', 'a'],
  ['vbscript: link', '<a href="vbscript:msgbox(1)">a</a>', 'a'],
  ['protocol-relative link', '<a href="//evil.example/">a</a>', 'a'],
  ['relative link', '<a href="/settings">a</a>', 'a'],
  ['link markup kept as text only', '<a href="javascript:x"><b>bold</b><img src=x onerror=alert(1)>t</a>', 'boldt'],
  [
    'a removed link leaves no link open',
    '<a href="javascript:x">t</a><a href="https://ok.example/">ok</a> after',
    `t<a href="https://ok.example/" ${LINK}>ok</a> after`,
  ],
  [
    'event handlers, style, own rel and target',
    '<a href="https://ok.example/" onclick="x" style="color:red" target="_self" rel="opener">x</a>',
    '<a href="https://ok.example/" target="_blank" rel="nofollow noopener">x</a>',
  ],
  ['style attribute and element', '<p style="position:fixed;top:0">x</p><style>body{display:none}</style>', '<p>x</p>'],
  [
    'unknown classes',
    '<p class="unknown">x</p><span class="status__content evil mention h-card">y</span>',
    '<p class="">x</p><span class="mention h-card">y</span>',
  ],
  ['class where none is allowed', '<b class="mention">x</b>', '<b>x</b>'],
  ['unclosed tags', '<p><b>bold<i>both', '<p><b>bold<i>both</i></b></p>'],
  ['an unclosed link is closed', '<p><a href="https://ok.example/">open', `<p><a href="https://ok.example/" ${LINK}>open</a></p>`],
  ['stray closing tags', '</b>x</i></p>', 'x<p></p>'],
  ['block in a paragraph', '<p>a<div>b</div>c</p>', '<p>a</p> b c<p></p>'],
  ['table', '<table><tr><td>a</td><td>b</td></tr></table>', 'ab'],
  ['comment', '<!--<img src=x onerror=alert(1)>-->ok', 'ok'],
  ['svg', '<svg onload=alert(1)><script>alert(1)</script><foreignObject><p>x</p></foreignObject></svg>after', 'after'],
  ['raw text in svg (sanitize-html GHSA of 2.17.6)', '<svg><textarea><img src=x onerror=alert(1)></textarea></svg>ok', 'ok'],
  [
    'mathml without annotation',
    '<p>a<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>b</p>',
    '<p>ab</p>',
  ],
  ['raw text in mathml', '<math><xmp><img src=x onerror=alert(1)></xmp></math>ok', 'ok'],
  [
    'annotation markup is text',
    '<math><semantics><mi>x</mi><annotation encoding="application/x-tex"><img src=x onerror=alert(1)>x &lt; y</annotation></semantics></math>',
    '$x &lt; y$',
  ],
  ['noscript', '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>ok', 'ok'],
  ['base and meta', '<base href="javascript:x/"><meta http-equiv="refresh" content="0;url=javascript:x">ok', 'ok'],
  [
    'forged markers',
    '<x-mastodon-heading>h</x-mastodon-heading><x-mastodon-math></x-mastodon-math><span x-mastodon-empty-class="">s</span>',
    'h<span>s</span>',
  ],
  [
    'marker-like text stays text',
    '<p>&lt;x-mastodon-math&gt; x-mastodon-empty-class=""</p>',
    '<p>&lt;x-mastodon-math&gt; x-mastodon-empty-class=""</p>',
  ],
];

describe('sanitizeStatusHtml', () => {
  it.each(SPEC.cases.map((c) => [c.name, c] as const))("gives Mastodon's own spec output: %s", (_name, c) => {
    expect(sanitizeStatusHtml(c.input)).toBe(c.expected);
  });

  it.each(HONEST.map((html, index) => [index, html] as const))('keeps honest Mastodon HTML exactly (%i)', (_index, html) => {
    expect(sanitizeStatusHtml(html)).toBe(html);
  });

  it('gives a Mastodon-local status the rel and target Mastodon gives it as a remote one', () => {
    const local =
      '<p><span class="h-card" translate="no"><a href="https://a.example/@bob" class="u-url mention">@<span>bob</span></a></span> ' +
      '<a href="https://a.example/tags/foo" class="mention hashtag" rel="tag">#<span>foo</span></a><br />bye</p>';
    expect(sanitizeStatusHtml(local)).toBe(
      `<p><span class="h-card" translate="no"><a href="https://a.example/@bob" class="u-url mention" ${LINK}>@<span>bob</span></a></span> ` +
        `<a href="https://a.example/tags/foo" class="mention hashtag" rel="nofollow noopener" target="_blank">#<span>foo</span></a><br>bye</p>`,
    );
  });

  it.each(HOSTILE)('makes hostile HTML inert: %s', (_name, input, expected) => {
    expect(sanitizeStatusHtml(input)).toBe(expected);
  });

  it('turns headings into strong paragraphs and removed blocks into spaces, as Mastodon does', () => {
    expect(sanitizeStatusHtml('<h2 lang="en">Title</h2><section>a</section><hr>b')).toBe('<p><strong lang="en">Title</strong></p> a   b');
  });

  it('keeps every link scheme of the allow-list and only those', () => {
    for (const href of [
      'http://a.example/',
      'https://a.example/',
      'dat://x',
      'dweb:/ipfs/x',
      'ipfs://x',
      'ipns://x',
      'ssb://x',
      'gopher://x',
      'xmpp:a@b',
      'magnet:?xt=x',
      'gemini://x',
    ]) {
      expect(sanitizeStatusHtml(`<a href="${href}">l</a>`)).toBe(`<a href="${href}" ${LINK}>l</a>`);
    }
    for (const href of ['ftp://a.example/', 'mailto:a@b', 'tel:123', 'file:///etc/passwd', 'blob:x', 'about:blank']) {
      expect(sanitizeStatusHtml(`<a href="${href}">l</a>`)).toBe('l');
    }
  });

  it('is idempotent on every case above', () => {
    const inputs = [...SPEC.cases.map((c) => c.input), ...HONEST, ...HOSTILE.map(([, input]) => input)];
    for (const input of inputs) {
      const once = sanitizeStatusHtml(input);
      expect(sanitizeStatusHtml(once), input).toBe(once);
    }
  });

  it('is idempotent on random tag soup, and its output holds only allowed elements, balanced', () => {
    const pieces = [
      '<p>',
      '</p>',
      '<a href="https://e.example/">',
      '<a href="javascript:x">',
      '<a>',
      '</a>',
      '<h2 lang="en">',
      '</h2>',
      '<div>',
      '</div>',
      '<hr>',
      '<br>',
      '<math>',
      '<semantics>',
      '<annotation encoding="application/x-tex">',
      '</annotation>',
      '</semantics>',
      '</math>',
      '<svg>',
      '</svg>',
      '<script>',
      '</script>',
      '<xmp>',
      '</xmp>',
      '<textarea>',
      '</textarea>',
      '<span class="invisible x">',
      '<span class="">',
      '</span>',
      '<ul>',
      '<li>',
      '</li>',
      '</ul>',
      '<ol reversed>',
      '</ol>',
      'text',
      ' & ',
      '&lt;b&gt;',
      '"q"',
      '<b>',
      '</b>',
      '<table><tr><td>',
      '</td></tr></table>',
      '<!-- c -->',
      '<font>',
      '</font>',
      '<style>',
      '</style>',
      '<noscript>',
      '</noscript>',
      '<img src=x onerror=alert(1)>',
      '<pre>',
      '</pre>',
      '<blockquote>',
      '</blockquote>',
      '<ruby>',
      '<rt>',
      '</rt>',
      '</ruby>',
      '<x-mastodon-math>',
      '</x-mastodon-unwrapped>',
    ];
    const allowed = new Set(STATUS_ELEMENTS);
    const random = createRandom(2026);
    for (let i = 0; i < 3000; i++) {
      let input = '';
      for (let n = 1 + randomInt(random, 14); n > 0; n--) input += pieces[randomInt(random, pieces.length)];
      const once = sanitizeStatusHtml(input);
      expect(sanitizeStatusHtml(once), input).toBe(once);
      const open: string[] = [];
      for (const [, closing, name] of once.matchAll(/<(\/?)([^\s>/]+)/g)) {
        expect(allowed.has(name ?? ''), `${input} -> ${once}`).toBe(true);
        if (name === 'br') continue;
        if (closing === '') open.push(name ?? '');
        else expect(open.pop(), `${input} -> ${once}`).toBe(name);
      }
      expect(open, `${input} -> ${once}`).toEqual([]);
      expect(once).not.toMatch(/\son[a-z]+=|x-mastodon-[a-z-]+=""|<[^>]*x-mastodon/);
    }
  });
});

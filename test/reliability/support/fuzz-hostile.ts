/**
 * Hostile requests: what an attacker sends rather than what a client gets wrong.
 * Deep and huge values, `__proto__` and `constructor` keys, NUL bytes and broken
 * UTF-8, odd content types, broken percent-encodings and path spellings, odd
 * methods and headers, and bytes below HTTP's grammar (lying lengths, bad chunks,
 * absolute-form targets, bare LFs). None may end in a 5xx, a stack trace, a hang,
 * or a response without the spec's body and headers.
 */
import fc from 'fast-check';
import type { Operation } from './openapi-operations.js';
import { renderDraft, type Draft } from './fuzz-request.js';
import { encodeRequest } from './raw-http.js';

export interface HostileCase {
  what: string;
  /** A draft to render, or raw bytes. */
  draft?: Draft;
  raw?: Buffer;
}

/** Text of `[[[...]]]` or `{"a":{"a":...}}` nested `depth` deep. */
export function deepJson(depth: number, shape: 'array' | 'object'): string {
  return shape === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** The draft's JSON body as text with `inner` spliced in as the value of `key` (first level). */
function spliceIntoBody(draft: Draft, key: string, inner: string): string {
  const json =
    draft.body && 'json' in draft.body && draft.body.json && typeof draft.body.json === 'object' && !Array.isArray(draft.body.json)
      ? draft.body.json
      : {};
  const rest = JSON.stringify({ ...json, [key]: 0 });
  return rest.replace(`${JSON.stringify(key)}:0`, `${JSON.stringify(key)}:${inner}`);
}

const DEPTHS = [64, 1_000, 4_111, 4_113, 20_000, 100_000];
const NUL = '\u0000';

/** Hostile variants of a valid draft of `operation`, built only when sent: some weigh megabytes. */
export function hostileCase(operation: Operation, valid: fc.Arbitrary<Draft>, port: number): fc.Arbitrary<LazyHostileCase> {
  return valid.chain((draft) => {
    const variants = hostileVariants(operation, draft, port);
    return fc.nat({ max: variants.length - 1 }).map((i) => variants[i]!);
  });
}

/** A hostile variant, named, built on demand. */
export interface LazyHostileCase {
  what: string;
  /**
   * Bytes after a complete request (pipelined garbage): the parser's 400 for them may
   * come before the first request's own answer, whose writes are then legitimate.
   */
  pipelined: boolean;
  make: () => HostileCase;
}

const lazy = (what: string, build: () => Omit<HostileCase, 'what'>, pipelined = false): LazyHostileCase => ({
  what,
  pipelined,
  make: () => ({ what, ...build() }),
});

/** Every hostile variant of one draft of `operation`. */
export function hostileVariants(operation: Operation, draft: Draft, port: number): LazyHostileCase[] {
  const cases: LazyHostileCase[] = [];
  const withRaw = (what: string, raw: () => string | Buffer, contentType?: string | null): LazyHostileCase =>
    lazy(what, () => ({ draft: { ...draft, body: { raw: raw() }, ...(contentType !== undefined ? { contentType } : {}) } }));
  const bodyKeys = operation.body ? Object.keys(operation.body.properties ?? {}) : [];
  const targetKeys = bodyKeys.includes('context') ? ['context', ...bodyKeys.slice(0, 2)] : bodyKeys.slice(0, 3);

  // Values nested deep, in the body itself and in its properties (an interaction's context first).
  for (const depth of DEPTHS) {
    cases.push(withRaw(`body nested ${depth} deep (arrays)`, () => deepJson(depth, 'array')));
    for (const key of targetKeys)
      cases.push(withRaw(`body.${key} nested ${depth} deep (objects)`, () => spliceIntoBody(draft, key, deepJson(depth, 'object'))));
  }
  // Huge values: over the body limit, and large but under it.
  for (const key of targetKeys.length ? targetKeys : ['x']) {
    cases.push(withRaw(`body.${key} a 1.2 MB string`, () => spliceIntoBody(draft, key, JSON.stringify('z'.repeat(1_200_000)))));
    cases.push(withRaw(`body.${key} a 300 KB string`, () => spliceIntoBody(draft, key, JSON.stringify('z'.repeat(300_000)))));
    cases.push(
      withRaw(`body.${key} an array of 100,000 items`, () => spliceIntoBody(draft, key, `[${Array(100_000).fill('0').join(',')}]`)),
    );
    cases.push(
      withRaw(`body.${key} an object of 20,000 keys`, () =>
        spliceIntoBody(draft, key, JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])))),
      ),
    );
    for (const number of ['1e308', '-1e308', '1e400', '-1e400', '18446744073709551616', '-0', '1e-400']) {
      cases.push(withRaw(`body.${key} = ${number}`, () => spliceIntoBody(draft, key, number)));
    }
    cases.push(withRaw(`body.${key} with NUL bytes`, () => spliceIntoBody(draft, key, JSON.stringify(`a${NUL}b${NUL}`))));
    cases.push(withRaw(`body.${key} = {"__proto__": ...}`, () => spliceIntoBody(draft, key, '{"__proto__":{"admin":true,"polluted":1}}')));
  }
  // Prototype keys at the top of the body.
  const bodyText = draft.body && 'json' in draft.body ? JSON.stringify(draft.body.json) : '{}';
  const inObject = (extra: string): string =>
    bodyText.startsWith('{') && bodyText !== '{}' ? `{${extra},${bodyText.slice(1)}` : `{${extra}}`;
  cases.push(withRaw('body with a top-level __proto__ key', () => inObject('"__proto__":{"scopes":["admin"],"isAdmin":true}')));
  cases.push(withRaw('body with constructor.prototype', () => inObject('"constructor":{"prototype":{"polluted":1}}')));
  cases.push(
    withRaw('body with a duplicate key', () =>
      bodyText.startsWith('{"') ? `{${bodyText.slice(1, bodyText.indexOf(':'))}:1,${bodyText.slice(1)}` : '{"a":1,"a":2}',
    ),
  );
  // Not the JSON object a body should be.
  for (const text of [
    '[]',
    'null',
    '"text"',
    '42',
    'true',
    '',
    ' ',
    '{"a":',
    '{"a":1}garbage',
    "{'a':1}",
    '\uFEFF{}',
    'NaN',
    '{"a":NaN}',
  ]) {
    cases.push(withRaw(`body ${JSON.stringify(text)}`, () => text));
  }
  cases.push(
    withRaw('body of invalid UTF-8', () =>
      Buffer.concat([Buffer.from('{"user_id":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]),
    ),
  );
  // Content types a JSON API does not take, and broken ones.
  for (const type of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    'application/json; charset=utf-16',
    'application/json;;',
    '*/*',
    'application/vnd.api+json',
    ';',
    'application/json, text/plain',
  ]) {
    cases.push(lazy(`Content-Type ${JSON.stringify(type)}`, () => ({ draft: { ...draft, body: { raw: bodyText }, contentType: type } })));
  }
  cases.push(lazy('a body without Content-Type', () => ({ draft: { ...draft, body: { raw: bodyText }, contentType: null } })));
  // Query strings and paths that decode badly.
  for (const raw of [
    '%ff',
    '%',
    '%zz',
    'a=%00',
    '__proto__[admin]=1',
    'constructor[prototype][polluted]=1',
    `q=${'v'.repeat(8_000)}`,
    Array.from({ length: 1_000 }, (_, i) => `p${i}=1`).join('&'),
    'limit=1&limit=2&limit=3',
  ]) {
    cases.push(lazy(`query ${raw.slice(0, 40)}`, () => ({ draft: { ...draft, rawQuery: raw } })));
  }
  for (const [what, spell] of PATH_SPELLINGS) cases.push(lazy(`path ${what}`, () => ({ draft: { ...draft, spellTarget: spell } })));
  for (const [name, value] of Object.entries(draft.pathValues)) {
    for (const bad of [NUL, `${value}${NUL}`, '\uFFFF', '../../health', 'x'.repeat(5_000)]) {
      cases.push(
        lazy(`path ${name}=${JSON.stringify(bad.slice(0, 20))}`, () => ({
          draft: { ...draft, pathValues: { ...draft.pathValues, [name]: bad } },
        })),
      );
    }
  }
  // Methods and headers.
  for (const method of ['PATCH', 'OPTIONS', 'TRACE', 'PUT', 'DELETE', 'HEAD', 'SEARCH']) {
    if (method !== operation.method) cases.push(lazy(`method ${method}`, () => ({ draft: { ...draft, method } })));
  }
  const header = (what: string, name: string, value: string): LazyHostileCase =>
    lazy(what, () => ({
      draft: { ...draft, headers: [...draft.headers.filter(([k]) => k.toLowerCase() !== name.toLowerCase()), [name, value]] },
    }));
  for (const value of [
    'Bearer',
    'Bearer  ',
    'Bearer a b',
    'Basic dXNlcjpwYXNz',
    `Bearer ${'t'.repeat(10_000)}`,
    'bearer rsv_x',
    'Bearer \u00ff\u00fe',
  ])
    cases.push(header(`Authorization ${JSON.stringify(value.slice(0, 20))}`, 'Authorization', value));
  for (const value of ['<script>alert(1)</script>', 'x'.repeat(200), '../../etc/passwd', 'a b c', '"quoted"'])
    cases.push(header(`X-Request-ID ${JSON.stringify(value.slice(0, 20))}`, 'X-Request-ID', value));
  for (const value of ['127.0.0.1', 'localhost', '169.254.169.254', 'x'.repeat(300), 'evil.example:99999', '[::1]'])
    cases.push(header(`X-Social-Instance ${JSON.stringify(value.slice(0, 20))}`, 'X-Social-Instance', value));
  cases.push(header('Accept-Language of 4 KB', 'Accept-Language', 'en;q=0.1,'.repeat(400)));
  cases.push(header('a 40 KB header', 'X-Padding', 'p'.repeat(40_000)));
  cases.push(
    lazy('300 headers', () => ({
      draft: { ...draft, headers: [...draft.headers, ...Array.from({ length: 300 }, (_, i) => [`X-H${i}`, 'v'] as [string, string])] },
    })),
  );
  cases.push(header('Expect: 100-continue', 'Expect', '100-continue'));
  cases.push(header('Expect: something-else', 'Expect', 'something-else'));

  // Below HTTP's grammar: raw bytes around the rendered request.
  const rendered = renderDraft(operation, draft);
  const bytes = encodeRequest(port, rendered).toString('latin1');
  const [head = '', body = ''] = bytes.split('\r\n\r\n');
  const requestLine = head.split('\r\n')[0] ?? '';
  const rest = head.split('\r\n').slice(1).join('\r\n');
  const raw = (what: string, text: string, pipelined = false): LazyHostileCase =>
    lazy(what, () => ({ raw: Buffer.from(text, 'latin1') }), pipelined);
  const chunked = body.length > 0 ? `${Buffer.byteLength(body, 'latin1').toString(16)}\r\n${body}\r\n0\r\n\r\n` : '0\r\n\r\n';
  cases.push(raw('absolute-form target', bytes.replace(` ${rendered.target} `, ` http://127.0.0.1:${port}${rendered.target} `)));
  cases.push(
    raw('absolute-form target with another host', bytes.replace(` ${rendered.target} `, ` http://evil.example${rendered.target} `)),
  );
  cases.push(raw('HTTP/1.0', bytes.replace(' HTTP/1.1\r\n', ' HTTP/1.0\r\n')));
  cases.push(raw('HTTP/2.0 on the request line', bytes.replace(' HTTP/1.1\r\n', ' HTTP/2.0\r\n')));
  cases.push(
    raw(
      'lower-case method',
      bytes.replace(/^[A-Z]+ /, (m) => m.toLowerCase()),
    ),
  );
  cases.push(raw('unknown method', bytes.replace(/^[A-Z]+ /, 'BREW ')));
  cases.push(raw('NUL byte in the target', bytes.replace(` ${rendered.target} `, ` ${rendered.target}\u0000x `)));
  cases.push(raw('space in the target', bytes.replace(` ${rendered.target} `, ` ${rendered.target.replace('/', '/ ')} `)));
  cases.push(raw('NUL byte in a header value', `${requestLine}\r\nX-Bad: a\u0000b\r\n${rest}\r\n\r\n${body}`));
  cases.push(raw('header without a colon', `${requestLine}\r\nNoColonHere\r\n${rest}\r\n\r\n${body}`));
  cases.push(raw('bare LF line endings', bytes.replace(/\r\n/g, '\n')));
  cases.push(
    raw('Content-Length: abc', `${requestLine}\r\n${rest.replace(/Content-Length: \d+\r\n/i, '')}\r\nContent-Length: abc\r\n\r\n${body}`),
  );
  cases.push(
    raw('Content-Length: -1', `${requestLine}\r\n${rest.replace(/Content-Length: \d+\r\n/i, '')}\r\nContent-Length: -1\r\n\r\n${body}`),
  );
  cases.push(
    raw(
      'two different Content-Lengths',
      `${requestLine}\r\nContent-Length: 1\r\nContent-Length: 2\r\n${rest.replace(/Content-Length: \d+\r\n/i, '')}\r\n\r\n${body}`,
    ),
  );
  cases.push(
    raw(
      'Content-Length shorter than the body',
      `${requestLine}\r\n${rest.replace(/Content-Length: \d+/i, 'Content-Length: 2')}\r\n\r\n${body || '{}xx'}`,
      true,
    ),
  );
  cases.push(
    raw('Content-Length and Transfer-Encoding together', `${requestLine}\r\nTransfer-Encoding: chunked\r\n${rest}\r\n\r\n${chunked}`),
  );
  cases.push(
    raw(
      'a malformed chunk',
      `${requestLine}\r\nTransfer-Encoding: chunked\r\n${rest.replace(/Content-Length: \d+\r\n/i, '')}\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    ),
  );
  cases.push(
    raw(
      'a well-formed chunked body',
      `${requestLine}\r\nTransfer-Encoding: chunked\r\n${rest.replace(/Content-Length: \d+\r\n/i, '')}\r\n\r\n${chunked}`,
    ),
  );
  cases.push(
    raw(
      'Transfer-Encoding: gzip, chunked',
      `${requestLine}\r\nTransfer-Encoding: gzip, chunked\r\n${rest.replace(/Content-Length: \d+\r\n/i, '')}\r\n\r\n0\r\n\r\n`,
    ),
  );
  cases.push(
    raw(
      'a 20 KB target',
      bytes.replace(` ${rendered.target} `, ` ${rendered.target}${rendered.target.includes('?') ? '&' : '?'}pad=${'a'.repeat(20_000)} `),
    ),
  );
  cases.push(raw('no Host header', bytes.replace(/Host: [^\r]*\r\n/i, '')));
  cases.push(raw('two Host headers', bytes.replace(/(Host: [^\r]*\r\n)/i, '$1Host: evil.example\r\n')));
  return cases;
}

/** Spellings of a target that must be routed (or refused) like any other, never crash the parser. */
export const PATH_SPELLINGS: ReadonlyArray<readonly [string, (target: string) => string]> = [
  ['with a double slash in front', (t) => `/${t}`],
  ['with a double slash inside', (t) => t.replace('/api/', '/api//')],
  ['upper-case', (t) => t.replace(/^[^?]*/, (p) => p.toUpperCase())],
  ['with /%61pi', (t) => t.replace(/^\/api\//, '/%61pi/')],
  ['with v%31', (t) => t.replace('/v1/', '/v%31/')],
  ['with an encoded slash', (t) => t.replace('/api/v1/', '/api%2fv1/')],
  ['with dot segments', (t) => t.replace('/api/v1/', '/api/v1/../v1/./')],
  ['with encoded dot segments', (t) => t.replace('/api/v1/', '/api/v1/%2e%2e/v1/')],
  ['with a lone %', (t) => t.replace(/^([^?]*)/, '$1%')],
  ['with %ff', (t) => t.replace(/^([^?]*)/, '$1%ff')],
  ['with a truncated UTF-8 escape', (t) => t.replace(/^([^?]*)/, '$1%E0%A4%A')],
  ['with %00', (t) => t.replace(/^([^?]*)/, '$1%00')],
  ['with ;matrix=1', (t) => t.replace(/^([^?]*)/, '$1;matrix=1')],
  ['with a fragment', (t) => `${t}#fragment`],
  ['with a backslash', (t) => t.replace('/api/v1/', '/api\\v1/')],
];

/**
 * The part of RFC 8941 structured fields that HTTP message signatures and digests use:
 * dictionaries whose members are byte sequences, tokens, strings, integers, booleans or inner
 * lists of strings, each with parameters. Parsing is strict: anything else is undefined.
 */

export type BareItem = string | number | boolean | Uint8Array | { readonly token: string };
export type Parameters = ReadonlyMap<string, BareItem>;

export interface Member {
  /** An item, or an inner list's items. */
  readonly value: BareItem | readonly { readonly value: BareItem; readonly params: Parameters }[];
  readonly params: Parameters;
}

class Cursor {
  index = 0;
  constructor(readonly text: string) {}
  get done(): boolean {
    return this.index >= this.text.length;
  }
  peek(): string {
    return this.text[this.index] ?? '';
  }
  skip(chars: string): void {
    while (!this.done && chars.includes(this.peek())) this.index += 1;
  }
}

class SyntaxFailure extends Error {}

function fail(): never {
  throw new SyntaxFailure();
}

function parseKey(c: Cursor): string {
  const match = /^[a-z*][a-z0-9_\-.*]*/.exec(c.text.slice(c.index));
  if (match === null) fail();
  c.index += match[0].length;
  return match[0];
}

function parseBareItem(c: Cursor): BareItem {
  const rest = c.text.slice(c.index);
  const ch = c.peek();
  if (ch === '"') {
    let out = '';
    c.index += 1;
    for (;;) {
      if (c.done) fail();
      const next = c.peek();
      c.index += 1;
      if (next === '"') return out;
      if (next === '\\') {
        const escaped = c.peek();
        if (escaped !== '"' && escaped !== '\\') fail();
        out += escaped;
        c.index += 1;
      } else {
        const code = next.charCodeAt(0);
        if (code < 0x20 || code > 0x7e) fail();
        out += next;
      }
    }
  }
  if (ch === ':') {
    const match = /^:([A-Za-z0-9+/=]*):/.exec(rest);
    if (match === null) fail();
    c.index += match[0].length;
    return new Uint8Array(Buffer.from(match[1] ?? '', 'base64'));
  }
  if (ch === '?') {
    const match = /^\?[01]/.exec(rest);
    if (match === null) fail();
    c.index += 2;
    return match[0] === '?1';
  }
  const integer = /^-?\d{1,15}(?![.\d])/.exec(rest);
  if (integer !== null) {
    c.index += integer[0].length;
    return Number(integer[0]);
  }
  const token = /^[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]*/.exec(rest);
  if (token !== null) {
    c.index += token[0].length;
    return { token: token[0] };
  }
  return fail();
}

function parseParameters(c: Cursor): Map<string, BareItem> {
  const params = new Map<string, BareItem>();
  while (c.peek() === ';') {
    c.index += 1;
    c.skip(' ');
    const key = parseKey(c);
    let value: BareItem = true;
    if (c.peek() === '=') {
      c.index += 1;
      value = parseBareItem(c);
    }
    params.set(key, value);
  }
  return params;
}

function parseMember(c: Cursor): Member {
  if (c.peek() !== '(') {
    const value = parseBareItem(c);
    return { value, params: parseParameters(c) };
  }
  c.index += 1;
  const items: { value: BareItem; params: Parameters }[] = [];
  for (;;) {
    c.skip(' ');
    if (c.done) fail();
    if (c.peek() === ')') {
      c.index += 1;
      return { value: items, params: parseParameters(c) };
    }
    const value = parseBareItem(c);
    items.push({ value, params: parseParameters(c) });
    if (c.peek() !== ' ' && c.peek() !== ')') fail();
  }
}

/** The members of a dictionary field value, in order; undefined when it is not one. */
export function parseDictionary(text: string): Map<string, Member> | undefined {
  const c = new Cursor(text);
  const members = new Map<string, Member>();
  try {
    c.skip(' \t');
    while (!c.done) {
      const key = parseKey(c);
      let member: Member = { value: true, params: new Map() };
      if (c.peek() === '=') {
        c.index += 1;
        member = parseMember(c);
      } else {
        member = { value: true, params: parseParameters(c) };
      }
      members.set(key, member);
      c.skip(' \t');
      if (c.done) break;
      if (c.peek() !== ',') fail();
      c.index += 1;
      c.skip(' \t');
      if (c.done) fail();
    }
  } catch (error) {
    if (error instanceof SyntaxFailure) return undefined;
    throw error;
  }
  return members;
}

/** The RFC 8941 serialisation of a bare item (strings quoted and escaped, integers as digits). */
export function serialiseBareItem(item: BareItem): string {
  if (typeof item === 'string') return `"${item.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;
  if (typeof item === 'number') return String(Math.trunc(item));
  if (typeof item === 'boolean') return item ? '?1' : '?0';
  if (item instanceof Uint8Array) return `:${Buffer.from(item).toString('base64')}:`;
  return item.token;
}

/** `;key=value` for each parameter (`;key` alone for true), in order. */
export function serialiseParameters(params: Parameters): string {
  let out = '';
  for (const [key, value] of params) out += value === true ? `;${key}` : `;${key}=${serialiseBareItem(value)}`;
  return out;
}

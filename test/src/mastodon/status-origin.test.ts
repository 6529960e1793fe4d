/**
 * Where a federated object comes from (src/mastodon/status-origin.ts). Hosts as WHATWG URL
 * parsing gives them (Node's URL: IDNA to punycode, default ports dropped); the id references
 * computed with Python 3 (FNV-1a 32-bit over the uri's bytes, ASCII here), noted beside them.
 */
import { describe, expect, it } from 'vitest';
import { accountDomain, acctFor, idForUri, isOriginOf, originHostOf } from '../../../src/mastodon/status-origin.js';

describe('originHostOf', () => {
  it('is the lowercase host of an http(s) uri, with its port only when not the default', () => {
    expect(originHostOf('https://Mastodon.Social/users/alice/statuses/1')).toBe('mastodon.social');
    expect(originHostOf('https://m.example:8443/users/a')).toBe('m.example:8443');
    expect(originHostOf('https://m.example:443/users/a')).toBe('m.example');
    expect(originHostOf('http://m.example:80/users/a')).toBe('m.example');
    expect(originHostOf('http://m.example:443/users/a')).toBe('m.example:443');
    expect(originHostOf('HTTPS://M.EXAMPLE')).toBe('m.example');
    expect(originHostOf('https://[::1]:3000/users/a')).toBe('[::1]:3000');
  });

  it('takes the host only: not the user info, query or fragment', () => {
    expect(originHostOf('https://evil.example@m.example/users/a')).toBe('m.example');
    expect(originHostOf('https://m.example?x=https://evil.example/')).toBe('m.example');
    expect(originHostOf('https://m.example#evil.example')).toBe('m.example');
  });

  it('spells an internationalised host in punycode (IDNA), as the instance itself is addressed', () => {
    // python: 'bücher.example'.encode('idna') == b'xn--bcher-kva.example'
    expect(originHostOf('https://bücher.example/users/a')).toBe('xn--bcher-kva.example');
    expect(originHostOf('https://BÜCHER.example/users/a')).toBe('xn--bcher-kva.example');
  });

  it("is '' for anything but an absolute http(s) uri", () => {
    for (const uri of [
      'tag:m.example,2026:objectId=1:objectType=Status',
      'ftp://m.example/a',
      'javascript:alert(1)',
      'acct:alice@m.example',
      'data:text/html,hi',
      '/users/alice',
      'm.example/users/alice',
      'not a url',
      '',
      null,
      undefined,
    ]) {
      expect(originHostOf(uri), String(uri)).toBe('');
    }
  });
});

describe('isOriginOf', () => {
  it('holds for the instance at the host of the uri, whatever the case', () => {
    expect(isOriginOf('m.example', 'https://m.example/users/a/statuses/1')).toBe(true);
    expect(isOriginOf('M.Example', 'https://m.EXAMPLE/users/a/statuses/1')).toBe(true);
    expect(isOriginOf('m.example:8443', 'https://m.example:8443/users/a')).toBe(true);
  });

  it('fails for another host, another port, a parent or sub domain, and a uri without a host', () => {
    expect(isOriginOf('evil.example', 'https://m.example/users/a')).toBe(false);
    expect(isOriginOf('m.example', 'https://m.example:8443/users/a')).toBe(false);
    expect(isOriginOf('m.example:8443', 'https://m.example/users/a')).toBe(false);
    expect(isOriginOf('sub.m.example', 'https://m.example/users/a')).toBe(false);
    expect(isOriginOf('example', 'https://m.example/users/a')).toBe(false);
    expect(isOriginOf('m.example', 'https://evil.example/?https://m.example/')).toBe(false);
    expect(isOriginOf('', 'tag:m.example,2026:1')).toBe(false);
    expect(isOriginOf('', undefined)).toBe(false);
    expect(isOriginOf('m.example', null)).toBe(false);
  });
});

describe('acctFor and accountDomain', () => {
  it("give the bare username to a reader of the account's own instance, user@domain to any other", () => {
    expect(acctFor('alice', 'm.example', 'm.example')).toBe('alice');
    expect(acctFor('alice', 'm.example', 'M.Example')).toBe('alice');
    expect(acctFor('alice', 'm.example', 'other.example')).toBe('alice@m.example');
    expect(acctFor('alice', 'm.example', 'm.example:8443')).toBe('alice@m.example');
    expect(acctFor('alice', 'm.example', undefined)).toBe('alice@m.example');
    expect(acctFor('alice', '', 'm.example')).toBe('alice');
  });

  it('read the domain from the acct, else from the uri', () => {
    expect(accountDomain('alice@M.Example', 'https://other.example/users/alice')).toBe('m.example');
    expect(accountDomain('alice', 'https://m.example:8443/users/alice')).toBe('m.example:8443');
    expect(accountDomain('alice', 'tag:m.example,2026:alice')).toBe('');
  });
});

describe('idForUri', () => {
  const MS = 1_763_000_000_123;
  const X = 'https://a.example/users/alice/statuses/1';

  it('is the time in milliseconds shifted by 16 bits and the low 16 bits of the FNV-1a hash of the uri', () => {
    // python: fnv1a32(X) = 0xc0332c40, low 16 bits 11328; (MS << 16) | 11328 = 115539968008072256
    expect(idForUri(MS, X)).toBe('115539968008072256');
    // python: fnv1a32('…/statuses/2') = 0xc33330f9, low 16 bits 12537
    expect(idForUri(MS, 'https://a.example/users/alice/statuses/2')).toBe('115539968008073465');
    expect(BigInt(idForUri(MS, X)) >> 16n).toBe(BigInt(MS));
  });

  it('is deterministic, and each attempt moves the low bits by one (wrapping within 16 bits)', () => {
    expect(idForUri(MS, X)).toBe(idForUri(MS, X));
    expect(idForUri(MS, X, 1)).toBe('115539968008072257');
    const low = (id: string) => Number(BigInt(id) & 0xffffn);
    expect(low(idForUri(MS, X, 0x10000 - 11328))).toBe(0);
    for (let attempt = 0; attempt < 70_000; attempt += 997) {
      expect(BigInt(idForUri(MS, X, attempt)) >> 16n).toBe(BigInt(MS));
    }
  });

  it('orders by time like a Mastodon id, flooring fractions and clamping before 1970 to 0', () => {
    expect(BigInt(idForUri(MS + 1, X))).toBeGreaterThan(BigInt(idForUri(MS, 'https://z.example/zzzz')));
    expect(idForUri(MS + 0.9, X)).toBe(idForUri(MS, X));
    expect(BigInt(idForUri(-5, X)) >> 16n).toBe(0n);
    expect(idForUri(-5, X)).toBe(String(11328));
  });
});

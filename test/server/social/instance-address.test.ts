import { describe, expect, it } from 'vitest';
import {
  InstanceAddressError,
  addressBytes,
  guardedLookup,
  isPublicAddress,
  parseInstanceAddress,
  type Resolver,
} from '../../../server/platform/social/instance-address.js';

/** Every spelling of a loopback, private or otherwise local host that must never be accepted. */
export const REFUSED_SPELLINGS = [
  // dotted and numeric IPv4
  '127.0.0.1',
  '127.0.0.1:443',
  '10.0.0.1',
  '192.168.1.1',
  '172.16.0.1',
  '169.254.169.254',
  '100.100.100.200',
  '0.0.0.0',
  '0',
  '2130706433',
  '0x7f000001',
  '0x7F000001',
  '0x7f.0.0.1',
  '0x7f.1',
  '0177.0.0.1',
  '0177.1',
  '017700000001',
  '127.1',
  '127.0.1',
  '３２.１',
  '１２７.０.０.１',
  '127。0。0。1',
  '8.8.8.8',
  // IPv6, bracketed or not, mapped
  '::1',
  '[::1]',
  '[::1]:443',
  '::ffff:127.0.0.1',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:0:0:1]',
  '[fe80::1]',
  '[fd00:ec2::254]',
  '[::]',
  // local names
  'localhost',
  'LOCALHOST',
  'localhost:8080',
  'localhost.',
  'foo.localhost',
  'mastodon.social.',
  'mastodon.local',
  'metadata.google.internal',
  'metadata',
  '1.0.0.127.in-addr.arpa',
  // not host names at all
  '',
  'https://mastodon.social',
  'mastodon.social/path',
  'user@mastodon.social',
  'mastodon.social:0',
  'mastodon.social:65536',
  'mastodon.social:-1',
  'mastodon.social:443:443',
  'masto don.social',
  '%31%32%37.0.0.1',
  'mastodon..social',
  '-mastodon.social',
  'mastodon.social\u0000',
  'foo.123',
  'foo.0x10',
  'a'.repeat(300) + '.social',
];

describe('parseInstanceAddress (secure mode)', () => {
  it.each(REFUSED_SPELLINGS)('refuses %j', (value) => {
    expect(() => parseInstanceAddress(value)).toThrow(InstanceAddressError);
  });

  it('accepts host names and gives the canonical lowercase form, port only when not 443', () => {
    expect(parseInstanceAddress('Mastodon.Social')).toEqual({
      host: 'mastodon.social',
      hostname: 'mastodon.social',
      port: 443,
      origin: 'https://mastodon.social',
      secure: true,
    });
    expect(parseInstanceAddress('mastodon.social:443').host).toBe('mastodon.social');
    expect(parseInstanceAddress('social.example.org:8443')).toMatchObject({ host: 'social.example.org:8443', port: 8443 });
    expect(parseInstanceAddress('bücher.example').host).toBe('xn--bcher-kva.example');
    expect(parseInstanceAddress('1.2.3.4.nip.example').host).toBe('1.2.3.4.nip.example');
  });

  it('names the header as the offending field', () => {
    try {
      parseInstanceAddress('127.0.0.1');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InstanceAddressError);
      expect((error as InstanceAddressError).statusCode).toBe(400);
      expect((error as InstanceAddressError).field).toBe('X-Social-Instance');
    }
  });
});

describe('parseInstanceAddress (insecure mode)', () => {
  it('reaches local addresses over plain HTTP', () => {
    expect(parseInstanceAddress('127.0.0.1:4000', { allowInsecure: true })).toEqual({
      host: '127.0.0.1:4000',
      hostname: '127.0.0.1',
      port: 4000,
      origin: 'http://127.0.0.1:4000',
      secure: false,
    });
    expect(parseInstanceAddress('[::1]:4000', { allowInsecure: true }).origin).toBe('http://[::1]:4000');
    expect(parseInstanceAddress('localhost', { allowInsecure: true }).origin).toBe('http://localhost');
  });

  it('still refuses what is not a host', () => {
    for (const value of ['', 'http://x', 'a/b', 'u@h', 'h:99999']) {
      expect(() => parseInstanceAddress(value, { allowInsecure: true })).toThrow(InstanceAddressError);
    }
  });
});

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.31.255.255',
    '192.168.0.1',
    '100.64.0.1',
    '100.100.100.200',
    '169.254.169.254',
    '169.254.170.2',
    '192.0.0.192',
    '0.0.0.0',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '198.18.0.1',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::1',
    '2002:c0a8:101::',
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'ff02::1',
    '2001:db8::1',
    '2001:0:4136:e378::1',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '2606:4700::1111',
    '64:ff9b::808:808',
  ])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('reads IPv6 text into bytes, embedded IPv4 included', () => {
    expect(addressBytes('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4]);
    expect(addressBytes('2001:db8::1')).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(addressBytes('1::')).toEqual([0, 1, ...new Array<number>(14).fill(0)]);
  });
});

describe('guardedLookup', () => {
  const resolver: Resolver = (hostname) =>
    Promise.resolve(
      hostname === 'rebound.example'
        ? [
            { address: '93.184.216.34', family: 4 },
            { address: '127.0.0.1', family: 4 },
          ]
        : hostname === 'public.example'
          ? [
              { address: '93.184.216.34', family: 4 },
              { address: '2606:2800:220:1::1', family: 6 },
            ]
          : [],
    );
  const lookup = guardedLookup(resolver);
  const run = (hostname: string, all: boolean): Promise<unknown> =>
    new Promise((resolve, reject) => {
      lookup(hostname, { all }, (error, address) => (error ? reject(error) : resolve(address)));
    });

  it('refuses a name with any non-public address, in both callback forms', async () => {
    await expect(run('rebound.example', false)).rejects.toThrow(InstanceAddressError);
    await expect(run('rebound.example', true)).rejects.toThrow(InstanceAddressError);
  });

  it('answers public addresses as the socket asked', async () => {
    await expect(run('public.example', false)).resolves.toBe('93.184.216.34');
    await expect(run('public.example', true)).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    await expect(run('nothing.example', false)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

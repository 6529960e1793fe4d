/**
 * Which social instances the service may talk to (decisions.md, "The social server"):
 * the `X-Social-Instance` header is a host name with an optional `:port`, reached over
 * HTTPS only. The rules against server-side request forgery live here, in two steps:
 *
 * 1. The header itself (`parseInstanceAddress`): a DNS name made of letters, digits and
 *    hyphens; no IP literal in any spelling (dotted, `2130706433`, `0x7f000001`,
 *    `0x7f.0.0.1`, `0177.0.0.1`, `127.1`, full-width digits, IPv6 with or without
 *    brackets, IPv4-mapped IPv6), no `localhost` or `*.localhost`, no trailing dot, no
 *    single-label names, no private-use top-level names (`.local`, `.internal`, `.arpa`).
 *    The WHATWG host parser does the canonicalisation (IDNA, numeric IPv4 forms), so the
 *    checks run on what a URL would really address, not on how it was spelt.
 * 2. The address actually connected to (`guardedLookup`, used as the socket's `lookup`
 *    at connect time, and `isPublicAddress` on the connected socket): a name that
 *    resolves to any loopback, private (RFC 1918, CGNAT, unique-local), link-local,
 *    multicast, unspecified, documentation or otherwise reserved address, which covers
 *    the cloud metadata addresses (169.254.169.254, 100.100.100.200, fd00:ec2::254,
 *    192.0.0.192), is refused before the socket connects. Resolution and connection are
 *    one step, so a DNS answer that changes between a check and the connection (DNS
 *    rebinding) cannot slip through.
 *
 * Only `allowInsecure` (RECSVC_ALLOW_INSECURE_INSTANCES=1, local testing) lifts both steps;
 * then instances are reached over plain HTTP, `127.0.0.1:PORT` included.
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { ValidationError } from '../../../src/errors.js';

/** The header that names the caller's instance. */
export const INSTANCE_HEADER = 'X-Social-Instance';

/** A checked instance address. */
export interface InstanceAddress {
  /**
   * Canonical `host[:port]`: lowercase, IDNA (punycode) form, the port only when it is
   * not the scheme's default. The instance part of social user ids.
   */
  readonly host: string;
  /** The host name alone (IPv6 literals, insecure mode only, in brackets). */
  readonly hostname: string;
  readonly port: number;
  /** `https://host[:port]` (or `http://` in insecure mode), no trailing slash. */
  readonly origin: string;
  /** False only in insecure mode. */
  readonly secure: boolean;
}

export interface InstanceAddressOptions {
  /** RECSVC_ALLOW_INSECURE_INSTANCES=1: plain HTTP, IP literals and private addresses allowed. */
  readonly allowInsecure?: boolean;
}

/** 400 `Invalid request` on `X-Social-Instance`: a value the service will not connect to. */
export class InstanceAddressError extends ValidationError {
  constructor(reason: string) {
    super(`${INSTANCE_HEADER} ${reason}`, INSTANCE_HEADER);
  }
}

/** Longest header value looked at (a 253-character name and a port). */
const MAX_VALUE_LENGTH = 260;
/** Characters a name may be written with before IDNA (ASCII letters, digits, hyphens, dots, and non-ASCII letters). */
const RAW_NAME = /^[a-z0-9.\-\u0080-\uffff]+$/i;
/** One DNS label after IDNA: letters, digits, inner hyphens, 1-63 characters. */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** A last label that a URL parser or inet_aton would read as a number (decimal, octal or hex). */
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|\d+)$/i;
/** Top-level names that are never public instances. */
const PRIVATE_TLDS = new Set(['localhost', 'local', 'internal', 'arpa', 'invalid']);

/**
 * Parses and checks an `X-Social-Instance` value; throws InstanceAddressError with the
 * reason when the service must not connect to it.
 */
export function parseInstanceAddress(value: string, options: InstanceAddressOptions = {}): InstanceAddress {
  if (value.length === 0) throw new InstanceAddressError('is empty');
  if (value.length > MAX_VALUE_LENGTH) throw new InstanceAddressError('is too long');
  return options.allowInsecure === true ? parseInsecure(value) : parseSecure(value);
}

function parseSecure(value: string): InstanceAddress {
  if (value.includes('[') || value.includes(']') || value.split(':').length > 2) {
    throw new InstanceAddressError('must be a host name, not an IP address');
  }
  const colon = value.indexOf(':');
  const rawName = colon === -1 ? value : value.slice(0, colon);
  const port = colon === -1 ? 443 : parsePort(value.slice(colon + 1));
  if (!RAW_NAME.test(rawName)) throw new InstanceAddressError('must be a host name such as mastodon.social (optionally with :port)');
  if (rawName.endsWith('.') || rawName.endsWith('\u3002') || rawName.endsWith('\uff0e') || rawName.endsWith('\uff61')) {
    throw new InstanceAddressError('must not end with a dot');
  }
  const hostname = canonicalHostname(rawName);
  if (isIP(hostname) !== 0) throw new InstanceAddressError('must be a host name, not an IP address');
  const labels = hostname.split('.');
  if (hostname.length > 253 || !labels.every((label) => LABEL.test(label))) {
    throw new InstanceAddressError('must be a host name such as mastodon.social (optionally with :port)');
  }
  const last = labels[labels.length - 1] ?? '';
  if (NUMERIC_LABEL.test(last)) throw new InstanceAddressError('must be a host name, not an IP address');
  if (labels.length < 2) throw new InstanceAddressError('must be a fully qualified host name such as mastodon.social');
  if (PRIVATE_TLDS.has(last)) throw new InstanceAddressError('names a local or private host');
  const host = port === 443 ? hostname : `${hostname}:${port}`;
  return { host, hostname, port, origin: `https://${host}`, secure: true };
}

/** Insecure mode (local tests): any host a URL can name, reached over plain HTTP. */
function parseInsecure(value: string): InstanceAddress {
  if (!/^[a-z0-9.:[\]\-\u0080-\uffff]+$/i.test(value)) {
    throw new InstanceAddressError('must be a host name or address with an optional :port');
  }
  let url: URL;
  try {
    url = new URL(`http://${value}/`);
  } catch {
    throw new InstanceAddressError('must be a host name or address with an optional :port');
  }
  if (url.hostname === '' || url.username !== '' || url.password !== '') {
    throw new InstanceAddressError('must be a host name or address with an optional :port');
  }
  const port = url.port === '' ? 80 : Number(url.port);
  return { host: url.host, hostname: url.hostname, port, origin: url.origin, secure: false };
}

function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text)) throw new InstanceAddressError('has an invalid port');
  const port = Number(text);
  if (port < 1 || port > 65535) throw new InstanceAddressError('has an invalid port');
  return port;
}

/**
 * The host name a URL would address: lowercase, IDNA-mapped (full-width digits and dots
 * included), numeric IPv4 spellings turned into dotted form. Throws when it is no host.
 */
function canonicalHostname(rawName: string): string {
  try {
    return new URL(`https://${rawName}/`).hostname;
  } catch {
    throw new InstanceAddressError('must be a host name such as mastodon.social (optionally with :port)');
  }
}

// ---------------------------------------------------------------------------
// Resolved addresses

interface Range {
  readonly bytes: readonly number[];
  readonly prefix: number;
}

function range(cidr: string): Range {
  const [address = '', bits = ''] = cidr.split('/');
  const bytes = addressBytes(address);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, prefix: Number(bits) };
}

/** IPv4 ranges no instance lives in (IANA special-purpose registry, plus multicast and reserved). */
const FORBIDDEN_V4: readonly Range[] = [
  '0.0.0.0/8', // "this network", the unspecified address
  '10.0.0.0/8', // RFC 1918
  '100.64.0.0/10', // carrier-grade NAT (Alibaba's metadata 100.100.100.200)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local (cloud metadata 169.254.169.254, ECS 169.254.170.2)
  '172.16.0.0/12', // RFC 1918
  '192.0.0.0/24', // IETF protocol assignments (Oracle's metadata 192.0.0.192)
  '192.0.2.0/24', // documentation
  '192.88.99.0/24', // 6to4 relay anycast
  '192.168.0.0/16', // RFC 1918
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the broadcast address
].map(range);

/** IPv6 ranges refused outright (the ones embedding an IPv4 address are checked through it below). */
const FORBIDDEN_V6: readonly Range[] = [
  '::/96', // unspecified, loopback, deprecated IPv4-compatible
  '64:ff9b:1::/48', // local-use NAT64
  '100::/64', // discard-only
  '2001::/32', // Teredo
  '2001:db8::/32', // documentation
  'fc00::/7', // unique local (AWS metadata fd00:ec2::254)
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated)
  'ff00::/8', // multicast
].map(range);

/** IPv6 prefixes that carry an IPv4 address, and where it sits. */
const EMBEDDED_V4: readonly { range: Range; offset: number }[] = [
  { range: range('::ffff:0:0/96'), offset: 12 }, // IPv4-mapped
  { range: range('64:ff9b::/96'), offset: 12 }, // NAT64
  { range: range('2002::/16'), offset: 2 }, // 6to4
];

/**
 * True when an instance may live at this resolved address: a unicast public address.
 * False for every special-purpose range above and for anything that is not an address.
 */
export function isPublicAddress(address: string): boolean {
  const bytes = addressBytes(address);
  if (!bytes) return false;
  if (bytes.length === 4) return !FORBIDDEN_V4.some((r) => inRange(bytes, r));
  if (FORBIDDEN_V6.some((r) => inRange(bytes, r))) return false;
  for (const { range: r, offset } of EMBEDDED_V4) {
    if (inRange(bytes, r)) return isPublicAddress(bytes.slice(offset, offset + 4).join('.'));
  }
  return true;
}

function inRange(bytes: readonly number[], r: Range): boolean {
  if (bytes.length !== r.bytes.length) return false;
  let bits = r.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((r.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** The bytes of a textual IPv4 (dotted quad) or IPv6 address (a zone index ignored); undefined otherwise. */
export function addressBytes(address: string): number[] | undefined {
  const text = address.replace(/%.*$/, '');
  const family = isIP(text);
  if (family === 4) return text.split('.').map(Number);
  if (family !== 6) return undefined;
  let head = text;
  let tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    tail = dotted[1].split('.').map(Number);
    head = text.slice(0, -dotted[1].length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const groups = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const gap = head.indexOf('::');
  const before = groups(gap === -1 ? head : head.slice(0, gap));
  const after = gap === -1 ? [] : groups(head.slice(gap + 2));
  const missing = 8 - tail.length / 2 - before.length - after.length;
  const words = [...before, ...new Array<number>(Math.max(0, missing)).fill(0), ...after];
  return [...words.flatMap((word) => [word >> 8, word & 0xff]), ...tail];
}

// ---------------------------------------------------------------------------
// Resolution at connect time

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to its addresses (injectable, so tests stub DNS). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver (getaddrinfo, as the socket would use). */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 })));
    });
  });

/** Raised inside the socket's lookup when a name resolves to an address no instance may have. */
export class ForbiddenInstanceAddressError extends InstanceAddressError {
  readonly code = 'ERR_RECSVC_FORBIDDEN_ADDRESS';

  constructor(hostname: string) {
    super(`names a host (${hostname}) that resolves to a loopback, private, link-local or reserved address`);
  }
}

/**
 * A `lookup` for `net.connect`/`tls.connect`: resolves through `resolver` and fails the
 * connection, before any packet is sent, when any address the name resolves to is not
 * public (a name with one private address among public ones is refused as a whole). IP
 * literals never reach it (the socket skips lookup for them), which is why the header
 * refuses them and the connector checks the connected socket's address too.
 */
export function guardedLookup(resolver: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const wanted = family === 0 ? addresses : addresses.filter((entry) => entry.family === family);
        if (addresses.length === 0 || wanted.length === 0) {
          const error = Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
          callback(error, '', 4);
          return;
        }
        if (!addresses.every((entry) => isPublicAddress(entry.address))) {
          callback(new ForbiddenInstanceAddressError(hostname), '', 4);
          return;
        }
        if (options.all === true) {
          callback(
            null,
            wanted.map((entry) => ({ address: entry.address, family: entry.family })),
          );
        } else {
          const first = wanted[0] as ResolvedAddress;
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), '', 4),
    );
  };
}

/**
 * The base of the absolute URLs the service writes (Link headers), never taken from the
 * client's `Host` header. In order:
 *
 * 1. the configured public URL (`--public-url` / RECSVC_PUBLIC_URL, `app.publicUrl`);
 * 2. with `--trust-proxy`, when the request came through a trusted proxy (fastify accepted
 *    at least one `X-Forwarded-For` hop, i.e. the socket's peer is trusted), that proxy's
 *    `X-Forwarded-Host` and `X-Forwarded-Proto`, if they are a valid host and http/https;
 * 3. the address this connection reached (the socket's local address and port);
 * 4. `http://localhost` (requests injected in-process have no socket).
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** The last resort, only reached by requests without a real socket (`app.inject`). */
export const FALLBACK_BASE_URL = 'http://localhost';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** The public base URL for this request, without a trailing slash. */
export function publicBaseUrl(request: FastifyRequest): string {
  return request.server.publicUrl ?? forwardedBaseUrl(request) ?? localBaseUrl(request) ?? FALLBACK_BASE_URL;
}

/**
 * A `host[:port]` as a proxy may forward it: a DNS name, an IPv4 literal or a bracketed
 * IPv6 literal, and an optional port 1..65535. Nothing else (no spaces, commas, quotes,
 * angle brackets, semicolons, slashes, userinfo), so it cannot add or break a Link entry.
 */
export function isValidHost(value: string): boolean {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  if (match === null) return false;
  const [, host = '', port] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  if (host.startsWith('[')) return isIPv6(host.slice(1, -1));
  if (isIPv4(host)) return true;
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name.length === 0 || name.length > 253 || /^[\d.]+$/.test(name)) return false;
  return name.split('.').every((label) => LABEL.test(label));
}

/** The trusted proxy's forwarded host and protocol, when trusted and valid. */
function forwardedBaseUrl(request: FastifyRequest): string | undefined {
  // `request.ips` exists only with trustProxy; it holds more than the socket's peer only
  // when fastify trusted that peer and read its X-Forwarded-For.
  const hops = request.ips;
  if (hops === undefined || hops.length < 2) return undefined;
  const host = lastEntry(request.headers['x-forwarded-host']);
  if (host === undefined || !isValidHost(host)) return undefined;
  const proto = (lastEntry(request.headers['x-forwarded-proto']) ?? socketProtocol(request)).toLowerCase();
  if (proto !== 'http' && proto !== 'https') return undefined;
  return `${proto}://${host.toLowerCase()}`;
}

/** Each connection's local base URL, worked out once: its address, port and TLS never change. */
const socketBaseUrls = new WeakMap<object, string>();

/** The local address and port the client connected to. */
function localBaseUrl(request: FastifyRequest): string | undefined {
  const socket = request.raw.socket as { localAddress?: string; localPort?: number } | undefined;
  if (socket === undefined) return undefined;
  let url = socketBaseUrls.get(socket);
  if (url === undefined) {
    url = socketBaseUrl(request, socket);
    if (url !== undefined) socketBaseUrls.set(socket, url);
  }
  return url;
}

function socketBaseUrl(request: FastifyRequest, socket: { localAddress?: string; localPort?: number }): string | undefined {
  const address = socket.localAddress;
  const port = socket.localPort;
  if (address === undefined || port === undefined) return undefined;
  const unmapped = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
  const host = isIPv6(unmapped) ? `[${unmapped}]` : unmapped;
  const protocol = socketProtocol(request);
  const defaultPort = protocol === 'https' ? 443 : 80;
  return `${protocol}://${host}${port === defaultPort ? '' : `:${port}`}`;
}

function socketProtocol(request: FastifyRequest): 'http' | 'https' {
  return (request.raw.socket as { encrypted?: boolean } | undefined)?.encrypted === true ? 'https' : 'http';
}

/** The last value of a possibly repeated, comma-separated header (the nearest proxy's). */
function lastEntry(value: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(value) ? value.join(',') : value;
  if (joined === undefined) return undefined;
  const last = joined.slice(joined.lastIndexOf(',') + 1).trim();
  return last === '' ? undefined : last;
}

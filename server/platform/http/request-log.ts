/**
 * What the request log says about a request: method, URL and the peer, with every query value
 * replaced by `*` — user ids (`?user_id=`), OAuth codes and states travel in query strings, and
 * a log line must not keep them (an erasure cannot reach log files). Paths carry post ids and
 * hashtags only, and are kept.
 */

/** `/a?user_id=alice&limit=5` → `/a?user_id=*&limit=*`; a URL without a query is returned as is. */
export function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals < 0 ? pair : `${pair.slice(0, equals)}=*`;
    })
    .join('&');
  return `${url.slice(0, at)}?${query}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number | undefined } | null;
}

/** The `req` serializer of the server's logger (fastify's own, with the query redacted). */
export function serializeRequest(request: LoggedRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactQuery(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

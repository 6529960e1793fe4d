/**
 * The spec's rate limits: the caller's tier windows (per minute and per hour)
 * plus the stricter windows of an endpoint group, shared by all its routes.
 * Runs after identity resolution, so a stream of bad tokens is limited as
 * anonymous. Headers report the tightest window.
 *
 * A request is classified by the route the router MATCHED (its pattern, e.g.
 * `/api/v1/recommendations`), never by the raw URL: `/%61pi/v1/…`, `/api/v%31/…`
 * and absolute-form targets reach the same route and the same limits. Requests
 * that match no route are limited too, in the caller's tier.
 *
 * Mastodon API calls through the service (the proxy, drop-in mode's forwarding, the blended
 * timelines) are limited as Mastodon limits them (300 per 5 minutes per caller by default), in
 * windows of their own instead of the tier's: a client browsing through the service in drop-in
 * mode is subject to what its instance would allow, not to the service's 60 per minute. Their
 * X-RateLimit-* headers are the instance's when it sends them (relayed over the service's own).
 *
 * The FASP provider's routes (under its path, and WebFinger), when it is on, are signed calls of
 * Mastodon servers: limited per address in the policy's `fasp` windows (default FASP_LIMITS).
 *
 * Token checks: identity resolution runs first, and checking a token the service has
 * not seen may mean asking another server (a Mastodon instance). Before such a check the
 * auth plugin calls `tokenCheckLimiter`, which charges the client's address in the
 * anonymous tier (429 once spent): a client inventing a new token per request gets no
 * more instance calls than anonymous requests. A request so charged whose token then
 * failed is not charged again as anonymous; one whose token was verified is charged in
 * its own tier too (once per token per cache lifetime).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { tierOf } from '../../../src/auth/identity.js';
import { RateLimitError } from '../../../src/errors.js';
import {
  FASP_LIMITS,
  groupOfPath,
  isMastodonCall,
  isRateLimitedPath,
  MASTODON_API_LIMITS,
  type EndpointGroup,
  type RateLimitPolicy,
} from '../../../src/rate-limit/policy.js';
import type { RateLimitStore, WindowCheck, WindowState } from '../rate-limit/rate-limit.store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The anonymous-tier windows charged for a token check (see tokenCheckLimiter), when one was. */
    tokenCheckWindows: readonly WindowState[] | undefined;
  }
}

export interface RateLimitPluginOptions {
  policy: RateLimitPolicy;
  store: RateLimitStore;
  now?: () => number;
  /** Drop-in mode: requests no route matched under its prefixes are forwarded Mastodon calls. */
  dropIn?: boolean;
  /** The FASP provider's path (`/fasp`), when it is on: its routes and WebFinger are limited in the policy's `fasp` windows. */
  faspPath?: string;
}

function tightest(windows: readonly WindowState[]): WindowState {
  return windows.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetAt > a.resetAt) ? b : a));
}

function setHeaders(reply: FastifyReply, state: WindowState): void {
  reply.header('x-ratelimit-limit', String(state.limit));
  reply.header('x-ratelimit-remaining', String(state.remaining));
  reply.header('x-ratelimit-reset', String(Math.ceil(state.resetAt)));
}

/**
 * How a request is limited, from its matched route pattern (`undefined` when no route
 * matched). CORS preflights are exempt: they carry no credentials, do no work, and a
 * browser sends one per distinct URL.
 */
export function classify(routeUrl: string | undefined, method: string): 'exempt' | { group: EndpointGroup | undefined } {
  if (routeUrl === undefined) return { group: undefined };
  if (method === 'OPTIONS' && routeUrl === '*') return 'exempt';
  if (!isRateLimitedPath(routeUrl)) return 'exempt';
  return { group: groupOfPath(routeUrl) };
}

/** 429 with the headers of the window that blocks longest. */
function refuse(reply: FastifyReply, windows: readonly WindowState[], nowMs: number): never {
  const exhausted = windows.filter((w) => w.remaining === 0);
  const blocking = exhausted.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
  setHeaders(reply, blocking);
  throw new RateLimitError(Math.max(1, Math.ceil(blocking.resetAt - nowMs / 1000)));
}

async function rateLimit(app: FastifyInstance, options: RateLimitPluginOptions): Promise<void> {
  const now = options.now ?? Date.now;
  const anonymousChecks = (request: FastifyRequest): WindowCheck[] =>
    options.policy.tiers.anonymous.map((limit) => ({ key: `tier:anonymous:ip:${request.ip}`, limit }));

  app.decorateRequest('tokenCheckWindows', undefined);
  if (app.hasDecorator('tokenCheckLimiter')) {
    // Every route, exempt ones included: a made-up token costs the same instance call anywhere.
    app.tokenCheckLimiter = async (request, reply) => {
      if (request.tokenCheckWindows !== undefined) return;
      const nowMs = now();
      const result = await options.store.consume(anonymousChecks(request), nowMs);
      request.tokenCheckWindows = result.windows;
      if (!result.allowed) refuse(reply, result.windows, nowMs);
    };
  }

  const isFasp = (routeUrl: string | undefined): boolean =>
    options.faspPath !== undefined &&
    routeUrl !== undefined &&
    (routeUrl.startsWith(`${options.faspPath}/`) || routeUrl === '/.well-known/webfinger');

  app.addHook('onRequest', async (request, reply) => {
    if (isFasp(request.routeOptions.url)) {
      // Signed server-to-server calls (and the actor's public documents): per address, in windows of their own.
      const checks = (options.policy.fasp ?? FASP_LIMITS).map((limit) => ({ key: `fasp:ip:${request.ip}`, limit }));
      const nowMs = now();
      const result = await options.store.consume(checks, nowMs);
      if (!result.allowed) refuse(reply, result.windows, nowMs);
      if (result.windows.length > 0) setHeaders(reply, tightest(result.windows));
      return;
    }
    const route = classify(request.routeOptions.url, request.method);
    if (route === 'exempt') return;
    const identity = request.identity;
    const tier = tierOf(identity);
    const caller = identity.kind === 'authenticated' ? identity.subjectKey : `ip:${request.ip}`;
    // A failed token already paid its anonymous-tier share in tokenCheckLimiter.
    const charged = identity.kind === 'anonymous' ? (request.tokenCheckWindows ?? []) : [];
    // An unmatched path is a forwarded Mastodon call for a Mastodon token's holder; for anyone else it stays in the tier.
    const social = identity.kind === 'authenticated' && identity.source === 'social';
    const mastodon = isMastodonCall(request.routeOptions.url, request.url, options.dropIn === true && social);
    const windows = mastodon
      ? (options.policy.mastodon ?? MASTODON_API_LIMITS).map((limit) => ({ key: `mastodon:${caller}`, limit }))
      : options.policy.tiers[tier].map((limit) => ({ key: `tier:${tier}:${caller}`, limit }));
    const checks: WindowCheck[] = charged.length > 0 ? [] : windows;
    const group = route.group;
    if (group) for (const limit of options.policy.groups[group]) checks.push({ key: `group:${group}:${caller}`, limit });
    const nowMs = now();
    const result = checks.length > 0 ? await options.store.consume(checks, nowMs) : { allowed: true, windows: [] };
    const states = [...charged, ...result.windows];
    if (!result.allowed) refuse(reply, states, nowMs);
    if (states.length > 0) setHeaders(reply, tightest(states));
  });
}

export const rateLimitPlugin = fp(rateLimit, { name: 'rate-limit' });

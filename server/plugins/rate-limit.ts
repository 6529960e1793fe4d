/**
 * The spec's rate limits: the caller's tier windows (per minute and per hour)
 * plus the stricter windows of an endpoint group, shared by all its routes.
 * Runs after identity resolution, so a stream of bad tokens is limited as
 * anonymous. Headers report the tightest window.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { tierOf } from '../../src/auth/identity.js';
import { RateLimitError } from '../../src/errors.js';
import { groupOfPath, isRateLimitedPath, type RateLimitPolicy } from '../../src/rate-limit/policy.js';
import type { RateLimitStore, WindowCheck, WindowState } from '../rate-limit/rate-limit.store.js';

export interface RateLimitPluginOptions {
  policy: RateLimitPolicy;
  store: RateLimitStore;
  now?: () => number;
}

function tightest(windows: readonly WindowState[]): WindowState {
  return windows.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetAt > a.resetAt) ? b : a));
}

function setHeaders(reply: FastifyReply, state: WindowState): void {
  reply.header('x-ratelimit-limit', String(state.limit));
  reply.header('x-ratelimit-remaining', String(state.remaining));
  reply.header('x-ratelimit-reset', String(Math.ceil(state.resetAt)));
}

async function rateLimit(app: FastifyInstance, options: RateLimitPluginOptions): Promise<void> {
  const now = options.now ?? Date.now;
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    if (!isRateLimitedPath(path)) return;
    const identity = request.identity;
    const tier = tierOf(identity);
    const caller = identity.kind === 'authenticated' ? identity.subjectKey : `ip:${request.ip}`;
    const checks: WindowCheck[] = options.policy.tiers[tier].map((limit) => ({ key: `tier:${tier}:${caller}`, limit }));
    const group = groupOfPath(path);
    if (group) for (const limit of options.policy.groups[group]) checks.push({ key: `group:${group}:${caller}`, limit });
    const nowMs = now();
    const result = await options.store.consume(checks, nowMs);
    if (result.allowed) {
      setHeaders(reply, tightest(result.windows));
      return;
    }
    const exhausted = result.windows.filter((w) => w.remaining === 0);
    const blocking = exhausted.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
    setHeaders(reply, blocking);
    throw new RateLimitError(Math.max(1, Math.ceil(blocking.resetAt - nowMs / 1000)));
  });
}

export const rateLimitPlugin = fp(rateLimit, { name: 'rate-limit' });

/**
 * The server protects itself: while the event loop lags or memory runs high
 * (@fastify/under-pressure), and while shutting down, new work is answered with
 * 503 in the spec's error body with `Retry-After`, instead of queueing until
 * everything times out. Health and metrics stay answered, so monitors see the state.
 */
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { UnavailableError } from '../../../src/errors.js';

export interface LoadSheddingOptions {
  /** 0 switches a check off. */
  maxEventLoopDelayMs: number;
  maxHeapUsedBytes: number;
  maxRssBytes: number;
  retryAfterSeconds: number;
  /** How often memory and event-loop delay are sampled (under-pressure's default: 1 s). */
  sampleIntervalMs?: number;
}

/** Routes that answer even under pressure: liveness, detailed health, metrics. */
const NEVER_SHED = new Set(['/health', '/api/v1/health', '/metrics']);

/**
 * Event-loop delay is judged only this long after the app is ready: start-up work
 * (migrations, loading the candidate pool) blocks the loop once, and the first
 * samples would otherwise shed the first requests of a healthy server.
 */
const DELAY_WARM_UP_MS = 3_000;

/** Seconds a caller is asked to wait when the service is shutting down (another instance may answer). */
const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

function isShed(request: FastifyRequest): boolean {
  return !NEVER_SHED.has(request.routeOptions.url ?? '');
}

async function loadShedding(app: FastifyInstance, { limits: options }: { limits: LoadSheddingOptions | null }): Promise<void> {
  // fastify's own 503 while closing has its own body and none of our headers: replaced here.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw new UnavailableError('The service is shutting down; retry shortly', SHUTDOWN_RETRY_AFTER_SECONDS);
  });
  if (!options) return;
  let readyAt = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    readyAt = Date.now();
  });
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelayMs,
    maxHeapUsedBytes: options.maxHeapUsedBytes,
    maxRssBytes: options.maxRssBytes,
    ...(options.sampleIntervalMs !== undefined ? { sampleInterval: options.sampleIntervalMs } : {}),
    pressureHandler: (request: FastifyRequest, _reply: unknown, type: string) => {
      if (!isShed(request)) return undefined;
      if (type === 'eventLoopDelay' && Date.now() - readyAt < DELAY_WARM_UP_MS) return undefined;
      request.log.warn({ type }, 'shedding load');
      return Promise.reject(new UnavailableError(`The service is overloaded (${type}); retry later`, options.retryAfterSeconds));
    },
  });
}

export const loadSheddingPlugin = fp(loadShedding, { name: 'load-shedding' });

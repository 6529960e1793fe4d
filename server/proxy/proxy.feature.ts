/**
 * Registers the transparent proxy (`/api/v1/proxy/*`) and, when asked, drop-in mode (the
 * Mastodon API paths the service does not implement itself, forwarded the same way).
 * Register it after every other feature: drop-in mode answers only what no route matched.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from '../platform/metrics/service-metrics.js';
import type { SocialServices } from '../platform/social/social.service.js';
import { NodeinfoCache, type NodeinfoCacheOptions } from './nodeinfo-cache.js';
import { dropInRoutes, proxyRoutes, type ProxyRouteOptions } from './proxy.routes.js';
import { ProxyService } from './proxy.service.js';

export interface ProxyFeatureOptions {
  /** Forward unmatched `/api/v1/*`, `/api/v2/*`, `/oauth/*` and `/.well-known/nodeinfo` to the instance. */
  readonly dropIn?: boolean;
  /** Called after the instance answered a forwarded request. */
  readonly onForwarded?: ProxyRouteOptions['onForwarded'];
  /** Whether a client id is one of the service's own OAuth clients (their `/oauth/*` calls are the service's). */
  readonly ownOAuthClient?: ProxyRouteOptions['ownOAuthClient'];
  /** How nodeinfo discovery answers are kept (defaults: DEFAULT_NODEINFO_CACHE_OPTIONS). */
  readonly nodeinfo?: NodeinfoCacheOptions;
}

/** The proxy's routes (and drop-in handlers); returns its service. */
export async function registerProxy(
  app: FastifyInstance,
  context: { social: Pick<SocialServices, 'client' | 'identityProvider'>; metrics?: Pick<ServiceMetrics, 'watchCaches'> },
  options: ProxyFeatureOptions = {},
): Promise<{ proxy: ProxyService; nodeinfo: NodeinfoCache }> {
  const proxy = new ProxyService(context.social.client);
  const nodeinfo = new NodeinfoCache(proxy, options.nodeinfo);
  context.metrics?.watchCaches(() => [{ cache: 'nodeinfo', entries: nodeinfo.size }]);
  const routeOptions: ProxyRouteOptions = {
    proxy,
    identities: context.social.identityProvider,
    nodeinfo,
    ...(options.onForwarded ? { onForwarded: options.onForwarded } : {}),
    ...(options.ownOAuthClient ? { ownOAuthClient: options.ownOAuthClient } : {}),
  };
  await app.register(proxyRoutes, routeOptions);
  if (options.dropIn) await app.register(dropInRoutes, routeOptions);
  return { proxy, nodeinfo };
}

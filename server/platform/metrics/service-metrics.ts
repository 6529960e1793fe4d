/**
 * The spec's Prometheus metrics, on a registry of this app's own (so several
 * apps in one test process never share counters). Features record into these.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface ServiceMetrics {
  readonly registry: Registry;
  readonly requestCount: Counter<'method' | 'endpoint' | 'status'>;
  readonly requestLatency: Histogram<'method' | 'endpoint'>;
  readonly recommendationGeneration: Histogram<'algorithm'>;
  readonly activeUsers: Gauge;
  readonly cacheHitRatio: Gauge<'cache_type'>;
  readonly databaseConnections: Gauge<'pool_name'>;
  readonly agentExecutions: Counter<'agent_type' | 'status'>;
  readonly modelPredictions: Counter<'model_name'>;
  /** Client events stored as counting, per event type. */
  readonly analyticsEventsAccepted: Counter<'type'>;
  /** Client events stored as refused (they never count), per event type and reason. */
  readonly analyticsEventsRejected: Counter<'type' | 'reason'>;
  /** Exchanges with social instances, per instance and outcome (`ok`, `error`: an outage). */
  readonly instanceRequests: Counter<'instance' | 'outcome'>;
  /** Latency of exchanges with social instances. */
  readonly instanceLatency: Histogram<'instance'>;
  /** Timeline pages answered from the service's own store because the instance failed (X-Recsvc-Degraded). */
  readonly degradedPages: Counter<'instance'>;
  /** Recommendations woven into timeline pages, per reader's instance. */
  readonly injectedStatuses: Counter<'instance'>;
  /** The `instance` label of a host: itself for the first INSTANCE_LABELS hosts seen, `other` beyond (bounded cardinality). */
  instanceLabel(host: string): string;
  /** Counts a cache lookup and refreshes that cache's hit ratio gauge. */
  recordCacheLookup(cacheType: string, hit: boolean): void;
  /** Notes that a user was active now (for service_active_users). */
  touchUser(userKey: string, nowMs?: number): void;
  /** Reports these caches' sizes as service_cache_entries{cache} and service_cache_bytes{cache}, read at each scrape. */
  watchCaches(sizes: () => readonly CacheSizeReading[]): void;
  /** Reports a pool's open connections as service_database_connections{pool_name}, read at each scrape. */
  watchDatabaseConnections(poolName: string, open: () => number): void;
  /** Reports the instances' fan-out messages as service_fanout_messages_total{channel,outcome}, read at each scrape. */
  watchFanout(counts: () => readonly FanoutReading[]): void;
}

/** One fan-out channel's message counts since the start (server/platform/redis). */
export interface FanoutReading {
  /** `ranking` (the ranking state's invalidations) or `experiments` (experiment changes). */
  channel: string;
  published: number;
  received: number;
  publishFailures: number;
}

/** One in-memory cache's size at a scrape. */
export interface CacheSizeReading {
  cache: string;
  entries: number;
  /** Bytes (characters for string caches), for caches bounded by size. */
  bytes?: number;
}

/** Distinct instances named in metric labels; any caller can name an instance, so the rest are `other`. */
const INSTANCE_LABELS = 50;

/** Users seen within this window count as active. */
const ACTIVE_WINDOW_MS = 5 * 60_000;

/** Creates the registry and every spec metric. */
export function createServiceMetrics(options: { defaultMetrics?: boolean } = {}): ServiceMetrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  const cacheStats = new Map<string, { hits: number; lookups: number }>();
  const lastSeen = new Map<string, number>();
  const labelledInstances = new Set<string>();

  const activeUsers = new Gauge({
    name: 'service_active_users',
    help: `Distinct callers seen in the last ${ACTIVE_WINDOW_MS / 60_000} minutes`,
    registers: [registry],
    collect() {
      const cutoff = Date.now() - ACTIVE_WINDOW_MS;
      for (const [key, at] of lastSeen) if (at < cutoff) lastSeen.delete(key);
      this.set(lastSeen.size);
    },
  });
  const cacheWatchers: (() => readonly CacheSizeReading[])[] = [];
  const databasePools = new Map<string, () => number>();
  const fanoutWatchers: (() => readonly FanoutReading[])[] = [];
  new Counter({
    name: 'service_fanout_messages_total',
    help: "Messages of the Redis fan-out between instances, per channel: this instance's changes published, publishes that failed (Redis down), other instances' changes received and applied",
    labelNames: ['channel', 'outcome'] as const,
    registers: [registry],
    collect() {
      // The fan-outs count for themselves: each scrape copies their totals.
      this.reset();
      for (const reading of fanoutWatchers.flatMap((read) => read())) {
        this.inc({ channel: reading.channel, outcome: 'published' }, reading.published);
        this.inc({ channel: reading.channel, outcome: 'publish_failed' }, reading.publishFailures);
        this.inc({ channel: reading.channel, outcome: 'received' }, reading.received);
      }
    },
  });
  const readings = (): CacheSizeReading[] => cacheWatchers.flatMap((read) => read());
  new Gauge({
    name: 'service_cache_entries',
    help: 'Entries held by each in-memory cache (the candidate pool, its vocabulary, profiles, result lists, statuses)',
    labelNames: ['cache'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of readings()) this.set({ cache: r.cache }, r.entries);
    },
  });
  new Gauge({
    name: 'service_cache_bytes',
    help: 'Size of each in-memory cache bounded by size (bytes; characters for string caches)',
    labelNames: ['cache'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of readings()) if (r.bytes !== undefined) this.set({ cache: r.cache }, r.bytes);
    },
  });
  const cacheHitRatio = new Gauge({
    name: 'service_cache_hit_ratio',
    help: 'Share of cache lookups that hit, per cache',
    labelNames: ['cache_type'] as const,
    registers: [registry],
  });

  return {
    registry,
    requestCount: new Counter({
      name: 'service_request_count',
      help: 'HTTP requests served',
      labelNames: ['method', 'endpoint', 'status'] as const,
      registers: [registry],
    }),
    requestLatency: new Histogram({
      name: 'service_request_latency_seconds',
      help: 'HTTP request latency in seconds',
      labelNames: ['method', 'endpoint'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    recommendationGeneration: new Histogram({
      name: 'service_recommendation_generation_seconds',
      help: 'Time to generate one list of recommendations, per ranking algorithm',
      labelNames: ['algorithm'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers: [registry],
    }),
    activeUsers,
    cacheHitRatio,
    databaseConnections: new Gauge({
      name: 'service_database_connections',
      help: 'Open database connections per pool',
      labelNames: ['pool_name'] as const,
      registers: [registry],
      collect() {
        for (const [pool, open] of databasePools) this.set({ pool_name: pool }, open());
      },
    }),
    agentExecutions: new Counter({
      name: 'service_agent_executions',
      help: 'Background agent runs by agent and outcome',
      labelNames: ['agent_type', 'status'] as const,
      registers: [registry],
    }),
    modelPredictions: new Counter({
      name: 'service_ml_model_predictions',
      help: 'Posts scored by each ranking model',
      labelNames: ['model_name'] as const,
      registers: [registry],
    }),
    analyticsEventsAccepted: new Counter({
      name: 'service_analytics_events_accepted_total',
      help: 'Client analytics events accepted (they count in experiments), per event type',
      labelNames: ['type'] as const,
      registers: [registry],
    }),
    analyticsEventsRejected: new Counter({
      name: 'service_analytics_events_rejected_total',
      help: 'Client analytics events stored as refused because they cannot be true, per event type and reason',
      labelNames: ['type', 'reason'] as const,
      registers: [registry],
    }),
    instanceRequests: new Counter({
      name: 'service_instance_requests_total',
      help: 'Exchanges with social instances, per instance and outcome (error: unreachable, timeout, 5xx, unusable answer)',
      labelNames: ['instance', 'outcome'] as const,
      registers: [registry],
    }),
    instanceLatency: new Histogram({
      name: 'service_instance_request_seconds',
      help: 'Latency of exchanges with social instances, per instance',
      labelNames: ['instance'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    degradedPages: new Counter({
      name: 'service_instance_degraded_pages_total',
      help: "Timeline pages answered from the service's own store because the instance failed, per instance",
      labelNames: ['instance'] as const,
      registers: [registry],
    }),
    injectedStatuses: new Counter({
      name: 'service_instance_injected_statuses_total',
      help: "Recommendations woven into timeline pages, per reader's instance",
      labelNames: ['instance'] as const,
      registers: [registry],
    }),
    instanceLabel(host) {
      if (labelledInstances.has(host)) return host;
      if (labelledInstances.size >= INSTANCE_LABELS) return 'other';
      labelledInstances.add(host);
      return host;
    },
    recordCacheLookup(cacheType, hit) {
      const stats = cacheStats.get(cacheType) ?? { hits: 0, lookups: 0 };
      stats.lookups += 1;
      if (hit) stats.hits += 1;
      cacheStats.set(cacheType, stats);
      cacheHitRatio.set({ cache_type: cacheType }, stats.hits / stats.lookups);
    },
    touchUser(userKey, nowMs = Date.now()) {
      lastSeen.set(userKey, nowMs);
    },
    watchCaches(sizes) {
      cacheWatchers.push(sizes);
    },
    watchFanout(counts) {
      fanoutWatchers.push(counts);
    },
    watchDatabaseConnections(poolName, open) {
      databasePools.set(poolName, open);
    },
  };
}

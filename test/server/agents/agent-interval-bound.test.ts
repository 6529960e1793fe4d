/**
 * The agent interval's bound (server/platform/duration-setting.ts) against the agents the app really
 * registers: at the longest RECSVC_AGENT_INTERVAL every agent's interval still fits a Node timer,
 * and the runner refuses an agent whose interval would not (Node would fire it after 1 ms).
 */
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { AgentRunner } from '../../../server/platform/agents/agent-runner.js';
import { openSqlite } from '../../../server/platform/db/connection.js';
import { migrateToLatest } from '../../../server/platform/db/migrate.js';
import { AGENT_INTERVAL_MAX_SECONDS, MAX_TIMER_MS } from '../../../server/platform/duration-setting.js';
import { createServiceMetrics } from '../../../server/platform/metrics/service-metrics.js';

describe('agent intervals and Node timers', () => {
  it('keeps every registered agent within a timer at the longest agent interval, the longest one close to it', async () => {
    const database = openSqlite(':memory:');
    await migrateToLatest(database.db);
    const app = await buildApp({ database, rateLimit: null, agentIntervalSeconds: AGENT_INTERVAL_MAX_SECONDS });
    try {
      const runner = app.agentRunner;
      const intervals = runner.names().map((name) => runner.find(name)!.intervalSeconds * 1000);
      for (const ms of intervals) expect(ms).toBeLessThanOrEqual(MAX_TIMER_MS);
      // The bound is not loose: the longest agent waits more than 24.8 days at it.
      expect(Math.max(...intervals)).toBeGreaterThan(MAX_TIMER_MS - 60_000);
    } finally {
      await app.close();
    }
  });

  it('refuses to register an agent whose interval a timer cannot hold', () => {
    const runner = new AgentRunner(createServiceMetrics(), { error: () => undefined, warn: () => undefined });
    const agent = { name: 'too_slow', description: 'x', scope: 'instance' as const, run: async () => ({ summary: '' }) };
    expect(() => runner.register({ ...agent, intervalSeconds: MAX_TIMER_MS / 1000 + 1 })).toThrow(/longer than a timer can wait/);
    expect(() => runner.register({ ...agent, intervalSeconds: 60 })).not.toThrow();
  });
});

/** The memory settings of `serve`: the SQLite memory map and how far V8 lets the heap grow. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_GROWTH_PERCENT, loadServerConfig } from '../../../server/config.js';
import { DEFAULT_SQLITE_MMAP_BYTES } from '../../../server/platform/db/connection.js';
import { DEFAULT_MEMORY_BUDGET_MB } from '../../../server/ranking-state/memory-budget.js';
import { DEFAULT_CO_ENGAGEMENT_OPTIONS } from '../../../src/ranking/index.js';
import { DEFAULT_STATUS_CACHE_OPTIONS } from '../../../server/ranking-state/status-cache.js';

const MB = 1024 * 1024;

describe('memory settings', () => {
  it('default to a 64 MB map and a heap growing to 1.5x what the last full collection kept', () => {
    const config = loadServerConfig({}, {});
    expect(config.sqliteMmapBytes).toBe(64 * 1024 * 1024);
    expect(DEFAULT_SQLITE_MMAP_BYTES).toBe(config.sqliteMmapBytes);
    expect(config.heapGrowthPercent).toBe(50);
    expect(DEFAULT_HEAP_GROWTH_PERCENT).toBe(50);
  });

  it('take RECSVC_SQLITE_MMAP_MB and RECSVC_HEAP_GROWTH_PERCENT, 0 meaning none and V8 own choice', () => {
    const config = loadServerConfig({}, { RECSVC_SQLITE_MMAP_MB: '0', RECSVC_HEAP_GROWTH_PERCENT: '0' });
    expect(config.sqliteMmapBytes).toBe(0);
    expect(config.heapGrowthPercent).toBe(0);
    expect(loadServerConfig({}, { RECSVC_SQLITE_MMAP_MB: '256', RECSVC_HEAP_GROWTH_PERCENT: '100' })).toMatchObject({
      sqliteMmapBytes: 256 * 1024 * 1024,
      heapGrowthPercent: 100,
    });
  });

  it("take the lists' life and bound: RECSVC_RESULT_TTL_SECONDS, RECSVC_RESULT_CACHE_MB", () => {
    expect(loadServerConfig({}, {}).caches).toMatchObject({ resultTtlMs: 120_000, resultMaxBytes: 96 * 1024 * 1024 });
    expect(loadServerConfig({}, { RECSVC_RESULT_TTL_SECONDS: '30', RECSVC_RESULT_CACHE_MB: '32' }).caches).toMatchObject({
      resultTtlMs: 30_000,
      resultMaxBytes: 32 * 1024 * 1024,
    });
    expect(() => loadServerConfig({}, { RECSVC_RESULT_TTL_SECONDS: '0' })).toThrow(/RECSVC_RESULT_TTL_SECONDS must be a whole number ≥ 1/);
    expect(() => loadServerConfig({}, { RECSVC_RESULT_TTL_SECONDS: '2m' })).toThrow(/RECSVC_RESULT_TTL_SECONDS must be a whole number ≥ 1/);
  });

  it('divide one budget, RECSVC_MEMORY_MB, among the caches: at the default each gets its own default bound', () => {
    expect(DEFAULT_MEMORY_BUDGET_MB).toBe(288);
    const caches = loadServerConfig({}, {}).caches;
    expect(caches).toMatchObject({
      profileMaxBytes: 64 * MB,
      resultMaxBytes: 96 * MB,
      recentInteractionsMaxBytes: 32 * MB,
      jsonMaxChars: DEFAULT_STATUS_CACHE_OPTIONS.jsonMaxChars,
    });
    expect(caches.coEngagement.maxBytes).toBe(DEFAULT_CO_ENGAGEMENT_OPTIONS.maxBytes);
    // 144 MB: half of each (2 : 3 : 2 : 1 : 1 parts of 16 MB).
    const half = loadServerConfig({}, { RECSVC_MEMORY_MB: '144' }).caches;
    expect(half).toMatchObject({
      profileMaxBytes: 32 * MB,
      resultMaxBytes: 48 * MB,
      recentInteractionsMaxBytes: 16 * MB,
      jsonMaxChars: 16 * MB,
    });
    expect(half.coEngagement.maxBytes).toBe(32 * MB);
  });

  it("let a cache's own variable win over its share of the budget", () => {
    const caches = loadServerConfig({}, { RECSVC_MEMORY_MB: '144', RECSVC_RESULT_CACHE_MB: '96', RECSVC_COENGAGEMENT_MB: '10' }).caches;
    expect(caches).toMatchObject({ resultMaxBytes: 96 * MB, profileMaxBytes: 32 * MB });
    expect(caches.coEngagement.maxBytes).toBe(10 * MB);
    expect(loadServerConfig({}, { RECSVC_MEMORY_MB: '9' }).caches).toMatchObject({
      profileMaxBytes: 2 * MB,
      recentInteractionsMaxBytes: 1 * MB,
    });
  });

  it('refuse a budget that is not a whole number of at least 9 MB, naming the variable', () => {
    for (const bad of ['8', '0', '-100', '1.5', '300MB', 'lots']) {
      expect(() => loadServerConfig({}, { RECSVC_MEMORY_MB: bad })).toThrow(
        new RegExp(`^RECSVC_MEMORY_MB must be a whole number ≥ 9, got "${bad}"$`),
      );
    }
  });
});

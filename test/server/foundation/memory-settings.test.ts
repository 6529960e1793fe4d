/** The memory settings of `serve`: the SQLite memory map and how far V8 lets the heap grow. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_GROWTH_PERCENT, loadServerConfig } from '../../../server/config.js';
import { DEFAULT_SQLITE_MMAP_BYTES } from '../../../server/platform/db/connection.js';

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
});

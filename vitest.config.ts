import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suite has its own config (vitest.reliability.config.ts): files one at a
    // time, long timeouts, the machine to itself.
    exclude: [...configDefaults.exclude, 'test/reliability/**'],
    // Child-process CLI tests and servers on 127.0.0.1:0 need a little room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Says where a worker's event loop was held long enough to risk vitest's RPC timeout.
    setupFiles: ['test/helpers/event-loop-watch.ts'],
    // `npm test` passes --coverage: a number to watch, no thresholds. Only in-process code
    // counts: the commands' child-process tests run dist/, which v8 does not attribute here.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'server/**/*.ts', 'commands/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
    },
  },
});

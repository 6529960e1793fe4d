import { defineConfig } from 'vitest/config';

/**
 * The reliability suite (`npm run test:reliability`): crash safety, graceful shutdown,
 * OpenAPI fuzzing, access control, rate-limit spellings, slow clients and a load run,
 * each against the built `recsvc serve` as a child process. Files run one at a time:
 * they load the machine and some of them measure the server's own timeouts.
 * RECSVC_RELIABILITY_LONG=1 runs the long variants.
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:stats`: the heavy statistical simulations (test/stats/*.stats.ts, named so the
 * default config's test/**\/*.test.ts never picks them up); their light versions run in the
 * normal suite. Kept under test/ so the project's tsconfig and lint cover it.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/stats/**/*.stats.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});

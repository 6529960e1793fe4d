/**
 * The HTTP suite again, on PostgreSQL (`npm run test:postgres`): the same test files, their
 * app harnesses opening a fresh schema of the test database instead of SQLite
 * (RECSVC_TEST_BACKEND=postgres, test/helpers/test-database.ts). Without a reachable server
 * the run prints one line and runs nothing.
 */
import { configDefaults, defineConfig } from 'vitest/config';
import { postgresUnavailable } from './test/postgres/postgres-test-database.js';

const unavailable = await postgresUnavailable();

/** The folders of test/server that drive the app over HTTP (app.inject or a listening server). */
const HTTP_SUITE = [
  'recommendations',
  'interactions',
  'posts',
  'experiments',
  'settings',
  'foundation',
  'analytics',
  'oauth',
  'timelines',
  'proxy',
  'privacy',
  'privacy-enforcement',
  'ranking-state',
  'social',
  'rag',
  'agents',
  'demo',
].map((folder) => `test/server/${folder}/**/*.test.ts`);

/** Tests of SQLite itself, which have no PostgreSQL meaning. */
const SQLITE_ONLY: string[] = [];

export default defineConfig({
  test: {
    include: unavailable === undefined ? HTTP_SUITE : [],
    exclude: [...configDefaults.exclude, ...SQLITE_ONLY],
    passWithNoTests: true,
    env: { RECSVC_TEST_BACKEND: 'postgres' },
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});

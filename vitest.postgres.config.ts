/**
 * The HTTP suite again, on PostgreSQL (`npm run test:postgres`): the same test files, their
 * app harnesses opening a fresh schema of the test database instead of SQLite
 * (RECSVC_TEST_BACKEND=postgres, test/helpers/test-database.ts). Without a reachable server
 * the run prints one line and runs nothing.
 */
import { configDefaults, defineConfig } from 'vitest/config';
import { postgresUnavailable } from './test/postgres/postgres-test-database.js';

// Without a server there is nothing to run: the one line postgresUnavailable printed says why.
if ((await postgresUnavailable()) !== undefined) process.exit(0);

/**
 * The folders of test/server that drive the app over HTTP (app.inject or a listening server),
 * and the repository tests beside them. Left out: test/server/db, SQLite's own machinery
 * (pragmas, the statement cache, the frozen schema); PostgreSQL's counterparts are in
 * test/postgres, which the default run includes.
 */
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
  'fasp',
].map((folder) => `test/server/${folder}/**/*.test.ts`);

/** Tests of SQLite files themselves, which have no PostgreSQL meaning. */
const SQLITE_ONLY = [
  // Another process's writes to the SQLite file, seen through PRAGMA data_version; PostgreSQL's
  // signal (LISTEN/NOTIFY) is tested in test/postgres/token-change-signal.test.ts.
  'test/server/foundation/service-token-verifier.test.ts',
  // The pseudonym key file kept beside the SQLite database file (a server URL needs the key
  // given instead: that refusal is tested here too, without connecting).
  'test/server/privacy/privacy-policy.test.ts',
  // The built binary run against an SQLite file and that key file beside it.
  'test/server/privacy/privacy-cli.test.ts',
  // The demo's SQLite bulk loader, checked row by row in rowid order.
  'test/server/demo/bulk-load-interactions.test.ts',
];

export default defineConfig({
  test: {
    include: HTTP_SUITE,
    exclude: [...configDefaults.exclude, ...SQLITE_ONLY],
    env: { RECSVC_TEST_BACKEND: 'postgres' },
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    setupFiles: ['test/helpers/event-loop-watch.ts'],
  },
});

// Lint (`npm run lint`, zero warnings in CI): typescript-eslint's type-aware recommended
// rules, which read the TypeScript program (floating promises, promises where a callback
// must return void, `any` flowing into typed code, needless assertions), minus what fights
// the house style; see the README's "Lint, format, layering".
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // fastify plugins and hooks, and implementations of async interfaces, are async by
      // contract whether or not this implementation awaits anything.
      '@typescript-eslint/require-await': 'off',
      // A `let` first read by a callback and assigned once later (start.ts's logger) cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `_name` marks a binding left unused on purpose (a column dropped by a rest destructuring).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // A feature adds its tables to the platform's `Database` by declaration merging
      // (`interface Database extends PostTables {}` in its *.tables.ts): an empty interface with one parent.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // Tests read JSON bodies (`response.json()`, `JSON.parse`) as `any` and assert on them:
    // typing every body would restate the response schemas the tests are there to check.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Published coefficients (Cody, Wichura) are quoted to their source's digits, more than a double holds.
    files: ['src/experiments/stats/distributions.ts'],
    rules: { 'no-loss-of-precision': 'off' },
  },
  {
    // kysely's own advice: migrations are frozen in time and use Kysely<any>, never the app's
    // Database type; so do the schema-agnostic helpers that run them or work on any table.
    files: [
      'server/platform/db/migrations/**',
      'server/platform/db/migrate.ts',
      'server/platform/db/bulk-insert.ts',
      'server/platform/db/maintenance.ts',
      'server/platform/db/transaction-lock.ts',
    ],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Plain Node scripts (benchmarks, this file): no TypeScript program to read.
    files: ['**/*.js', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
);

/**
 * What the fast commands load (issue 27): `recsvc --version`, an offline `recsvc bucket` and
 * `recsvc gates check --file` must start in under twice a bare `node -e 0` (bench/cli/cold-start.js
 * measures it), which holds only while they import no more than they need. Each command runs in a
 * child process with a module loader hook that writes down every ES module it loads, and the
 * CommonJS modules (require.cache) at exit; the test names the project files and packages each
 * one may load, so a top-level import that drags in the server, TypeBox or the statistics shows
 * up here with the module's name. Needs the build (`npx tsc -p tsconfig.build.json`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, tempDir } from '../helpers/cli.js';

const dir = tempDir('recsvc-startup-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hooks = join(dir, 'hooks.mjs');
writeFileSync(
  hooks,
  `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (!url.startsWith('node:')) appendFileSync(process.env.RECSVC_LOAD_LOG, url + '\\n');
  return next(url, context);
}
`,
);
const register = join(dir, 'register.mjs');
writeFileSync(
  register,
  `import { createRequire, register } from 'node:module';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(pathToFileURL(hooks).href)});
const require = createRequire(import.meta.url);
process.on('exit', () => {
  const files = Object.keys(require('node:module')._cache);
  if (files.length > 0) appendFileSync(process.env.RECSVC_LOAD_LOG, files.map((f) => 'file://' + f).join('\\n') + '\\n');
});
`,
);

const csv = join(dir, 'users.csv');
writeFileSync(
  csv,
  'user_id,variant,impressions,clicks,interactions,sessions,session_seconds,bounces,feedback_positive,feedback_negative\n' +
    Array.from({ length: 40 }, (_, i) => `u${i},${i % 2 ? 'treatment' : 'control'},20,3,1,2,300,0,1,0`).join('\n') +
    '\n',
);

interface Loaded {
  /** Project files, relative to the repository (bin/recsvc, dist/...). */
  project: string[];
  /** Packages under node_modules, by name. */
  packages: string[];
}

/** Runs `recsvc ...args` (stdout piped, as in CI) and returns what it loaded. */
function loadedBy(args: string[], okCodes = [0]): Loaded {
  const log = join(dir, `load-${args[0]}-${args.length}.txt`);
  writeFileSync(log, '');
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, BIN, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, RECSVC_LOAD_LOG: log, NO_COLOR: '1', RECSVC_SERVER: '', RECSVC_TOKEN: '' },
    encoding: 'utf8',
  });
  expect(okCodes, result.stderr).toContain(result.status);
  const files = new Set(
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('file://'))
      .map((url) => decodeURIComponent(new URL(url).pathname)),
  );
  const project = new Set<string>();
  const packages = new Set<string>();
  for (const file of files) {
    const inModules = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (inModules) packages.add(inModules[1]!);
    else if (file.startsWith(REPO_ROOT)) project.add(file.slice(REPO_ROOT.length));
  }
  return { project: [...project].sort(), packages: [...packages].sort() };
}

/** The program's own start: the binary, the error mapping and the version. */
const CORE = [
  'bin/recsvc',
  'dist/commands/program.js',
  'dist/commands/run.js',
  'dist/commands/support/cli-error.js',
  'dist/commands/support/output.js',
  'dist/commands/support/version.js',
  'dist/server/platform/version.js',
  'dist/src/errors.js',
  'dist/src/exit-codes.js',
  'dist/src/number-format.js',
];

describe('modules each fast command loads', () => {
  it('recsvc --version: the program core and commander, no command', () => {
    const loaded = loadedBy(['--version']);
    expect(loaded.project).toEqual(CORE);
    expect(loaded.packages).toEqual(['commander']);
  });

  it('recsvc bucket (offline, piped): the bucket command and the assignment rule; no schemas, statistics or tables', () => {
    const loaded = loadedBy(['bucket', 'u1', '--experiment', '1', '--allocations', 'a=50,b=50']);
    expect(loaded.project).toEqual(
      [
        ...CORE,
        'dist/commands/bucket.action.js',
        'dist/commands/bucket.js',
        'dist/commands/support/allocations.js',
        'dist/commands/support/bucket-view.js',
        'dist/commands/support/line-source.js',
        'dist/commands/support/options.js',
        'dist/commands/support/server-options.js',
        'dist/src/experiments/assignment.js',
        'dist/src/experiments/canonical-user-id.js',
        'dist/src/experiments/design-rules.js',
        'dist/src/experiments/experiment-defaults.js',
      ].sort(),
    );
    expect(loaded.packages).toEqual(['commander']);
  });

  it('recsvc gates check --file: the offline gates and their statistics; no server, schemas, HTTP client, tables or simple-statistics', () => {
    const loaded = loadedBy(
      ['gates', 'check', '--file', csv, '--allocations', 'control=50,treatment=50', '--control', 'control', '--allow-inconclusive'],
      [0, 1],
    );
    // Two variants: the sample-ratio check's chi-square has one degree of freedom, a closed
    // form; simple-statistics (its gamma function) is required only for three variants or more.
    expect(loaded.packages).toEqual(['commander']);
    expect(loaded.project.filter((file) => !file.startsWith('dist/commands/') && !file.startsWith('dist/src/experiments/'))).toEqual(
      CORE.filter((file) => !file.startsWith('dist/commands/')),
    );
    expect(loaded.project.filter((file) => /\.schema\.js$|\/api-client\.js$/.test(file))).toEqual([]);
    expect(loaded.project).toContain('dist/commands/gates/check.action.js');
    // A CSV with its design in flags: neither the JSON Lines export's parser (and the
    // interleaving analysis it brings) nor zlib, which only a .gz file needs.
    expect(loaded.project.filter((file) => /export-format|interleaving|instance-breakdown/.test(file))).toEqual([]);
    // No other command's registration.
    expect(
      loaded.project.filter((file) => /^dist\/commands\/(experiment|token|fasp|agents|import|serve|selftest|eval|bucket)/.test(file)),
    ).toEqual([]);
  });
});

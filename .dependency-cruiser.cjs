// Layering rules (`npm run lint:layers`), checked on every import, type-only ones included.
// Tests may import anything; only src/, server/ and commands/ are cruised.
/** The platform floor: shared server infrastructure (databases, HTTP plumbing, Redis, metrics, agents, auth, social client, health). Any server module may use it. */
const PLATFORM = '^server/platform/';
/** A feature: a folder of server/ beside the platform floor. */
const FEATURE = '^server/(?!platform/)[^/]+/';
/** A feature's declared interface: what other features may import from it. */
const FEATURE_INTERFACE = '\\.(feature|service|schema|events|types)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'src-is-pure',
      comment: 'src/ is the domain shared by the server and the CLI: it imports neither side.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(server|commands)/' },
    },
    {
      name: 'server-not-commands',
      comment: 'The server never depends on the CLI.',
      severity: 'error',
      from: { path: '^server/' },
      to: { path: '^commands/' },
    },
    {
      name: 'commands-reach-the-server-over-http',
      comment:
        'Commands talk to a server through its API. Exceptions: `serve` starts one, and the token commands ' +
        'write the tokens table on the server host (there is no API to mint the first admin token), and ' +
        "`agents` runs an agent once against the server's database on the server host, and `fasp` registers the service with fediverse servers, storing the keys in that database. " +
        "`eval --database` (commands/support/eval-data.ts) reads that database, read-only, through the ranking_fit agent's own read, so an evaluation sees what the agent's fit sees. " +
        'server/platform/version.ts is a leaf (it reads package.json) that --version shares.',
      severity: 'error',
      from: {
        path: '^commands/',
        pathNot: '^commands/serve(\\.action)?\\.ts$|^commands/token/|^commands/agents/|^commands/fasp/|^commands/support/eval-data\\.ts$',
      },
      to: { path: '^server/', pathNot: '^server/platform/version\\.ts$' },
    },
    {
      name: 'platform-imports-no-feature',
      comment:
        'server/platform/ is the floor the features stand on: it imports no feature and not the composition root ' +
        '(app.ts, start.ts, features.ts, config.ts, context.ts). A feature plugs into it through interfaces the platform declares ' +
        "(its tables join the platform's Database type by declaration merging, from the feature's *.tables.ts).",
      severity: 'error',
      from: { path: PLATFORM },
      to: { path: [FEATURE, '^server/(app|start|features|config|context)\\.ts$'] },
    },
    {
      name: 'features-meet-through-interfaces',
      comment:
        'A feature folder under server/ imports another only through its declared interface ' +
        '(*.feature.ts, *.service.ts, *.schema.ts, *.events.ts, *.types.ts): never its repository, tables, ' +
        'routes, mappers or other internals. The platform floor (server/platform/) is shared.',
      severity: 'error',
      from: { path: '^server/([^/]+)/', pathNot: PLATFORM },
      to: { path: FEATURE, pathNot: ['^server/$1/', FEATURE_INTERFACE] },
    },
    {
      name: 'features-below-the-composition-root',
      comment: 'app.ts, start.ts and features.ts assemble the features; a feature may name their types, not run them.',
      severity: 'error',
      from: { path: '^server/[^/]+/' },
      to: { path: '^server/(app|start|features)\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'migrations-are-frozen',
      comment: 'A migration never imports app code: it must mean the same thing forever.',
      severity: 'error',
      from: { path: '^server/platform/db/migrations/' },
      to: { path: '^(src|server|commands)/', pathNot: '^server/platform/db/migrations/' },
    },
    {
      name: 'no-circular',
      comment:
        'No module reaches itself through its imports, type-only ones included (tsPreCompilationDeps): a loop of ' +
        'types ties its files into one knot as surely as a loop of calls. Declare a shared type where both sides can see it ' +
        "(the command's options in its .action.ts, a feature's slice of the context in its .feature.ts).",
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves (a typo in a path is caught here, before the build).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};

/**
 * The `recsvc` program: registers the commands a run needs. Command files only declare
 * flags and help; their actions import the heavy modules (server, statistics)
 * lazily, and only the named command's file is imported, so `recsvc --version`,
 * `recsvc bucket` or `recsvc gates check --file` start fast.
 */
import { Command } from 'commander';
import { SERVICE_VERSION } from './support/version.js';

type Register = (program: Command) => void;

/**
 * Every top-level command, in help order, with the group it is listed under and a loader of its
 * registration module. A run that names one command imports only that one (`recsvc bucket …`
 * loads neither the experiment commands' statistics nor the schemas); help, a bare `recsvc` or
 * an unknown name load them all. test/commands/startup-modules.test.ts holds this honest.
 */
const COMMANDS: readonly { name: string; group: string; load: () => Promise<Register> }[] = [
  { name: 'serve', group: 'Service:', load: async () => (await import('./serve.js')).registerServe },
  { name: 'token', group: 'Service:', load: async () => (await import('./token/token.js')).registerToken },
  { name: 'fasp', group: 'Service:', load: async () => (await import('./fasp/fasp.js')).registerFasp },
  { name: 'agents', group: 'Service:', load: async () => (await import('./agents/agents.js')).registerAgents },
  { name: 'import', group: 'Service:', load: async () => (await import('./import/import.js')).registerImport },
  { name: 'experiment', group: 'Experiments:', load: async () => (await import('./experiment/experiment.js')).registerExperiment },
  { name: 'gates', group: 'Experiments:', load: async () => (await import('./gates/gates.js')).registerGates },
  { name: 'bucket', group: 'Experiments:', load: async () => (await import('./bucket.js')).registerBucket },
  { name: 'selftest', group: 'Experiments:', load: async () => (await import('./selftest.js')).registerSelftest },
  { name: 'demo', group: 'Experiments:', load: async () => (await import('./demo/demo.js')).registerDemo },
  { name: 'eval', group: 'Ranking quality:', load: async () => (await import('./eval.js')).registerEval },
];

/** Options of the program itself that take no value: they may come before the command's name. */
const PROGRAM_FLAGS: ReadonlySet<string> = new Set(['-V', '--version']);

/**
 * The commands a run needs registered: none for `recsvc --version` alone, the one named (the
 * first operand) when it is known, else every one (help, no command, an unknown name: commander
 * lists or suggests from all of them).
 */
function commandsFor(args: readonly string[]): readonly (typeof COMMANDS)[number][] {
  const first = args.find((arg) => !PROGRAM_FLAGS.has(arg));
  if (first === undefined && args.length > 0) return [];
  const named = COMMANDS.find((command) => command.name === first);
  return named ? [named] : COMMANDS;
}

/**
 * Builds the program with the commands `argv` (process.argv: node, script, arguments) needs;
 * without argv, every command.
 */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const program = new Command('recsvc')
    .description('Recommendation service for a Mastodon-compatible network, with an A/B experiment toolkit.')
    .version(SERVICE_VERSION, '-V, --version', 'print the version')
    .showSuggestionAfterError(true)
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false })
    .addHelpText(
      'after',
      `
Examples:
  $ recsvc serve --demo                       start the API on :8080 with demo data
  $ recsvc token create --scopes read,write,admin --json
  $ recsvc serve --help                       every server setting

Environment: RECSVC_PORT, RECSVC_DB, RECSVC_RATE_LIMIT, RECSVC_SERVER, RECSVC_TOKEN.
Exit codes: 0 ok, 1 gate failed, 2 usage or input error, 3 server error, 4 inconclusive, 130 Ctrl-C.
Tables and colours only on a terminal without NO_COLOR; piped output is plain columns (or --json).`,
    );
  const wanted = argv === undefined ? COMMANDS : commandsFor(argv.slice(2));
  const loaded = await Promise.all(wanted.map(async (command) => ({ group: command.group, register: await command.load() })));
  let group = '';
  for (const command of loaded) {
    if (command.group !== group) program.commandsGroup((group = command.group));
    command.register(program);
  }
  return program;
}

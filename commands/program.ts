/**
 * The `recsvc` program: registers every command. Command files only declare
 * flags and help; their actions import the heavy modules (server, statistics)
 * lazily, so `recsvc --version` or `recsvc bucket` start fast.
 */
import { Command } from 'commander';
import { registerAgents } from './agents/agents.js';
import { registerBucket } from './bucket.js';
import { registerDemo } from './demo/demo.js';
import { registerEval } from './eval.js';
import { registerExperiment } from './experiment/experiment.js';
import { registerGates } from './gates/gates.js';
import { registerImport } from './import/import.js';
import { registerSelftest } from './selftest.js';
import { registerServe } from './serve.js';
import { registerToken } from './token/token.js';
import { registerFasp } from './fasp/fasp.js';
import { SERVICE_VERSION } from './support/version.js';

/** Builds the program with every command registered. */
export function buildProgram(): Command {
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
  program.commandsGroup('Service:');
  registerServe(program);
  registerToken(program);
  registerFasp(program);
  registerAgents(program);
  registerImport(program);
  program.commandsGroup('Experiments:');
  registerExperiment(program);
  registerGates(program);
  registerBucket(program);
  registerSelftest(program);
  registerDemo(program);
  program.commandsGroup('Ranking quality:');
  registerEval(program);
  return program;
}

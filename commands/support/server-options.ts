/**
 * The flags every server-talking command shares: --server, --token, --timeout, with
 * their environment variables. Declared here so the help reads the same everywhere.
 */
import { Option, type Command } from 'commander';
import { parsePositiveNumber } from './options.js';

export const DEFAULT_SERVER = 'http://127.0.0.1:8080';

/** What a command needs to reach the server. */
export interface ServerFlags {
  server?: string;
  token?: string;
  timeout?: number;
}

/** Adds --server/RECSVC_SERVER, --token/RECSVC_TOKEN and --timeout to a command. */
export function addServerOptions(command: Command): Command {
  return command
    .addOption(new Option('--server <url>', `server base URL (default ${DEFAULT_SERVER})`).env('RECSVC_SERVER'))
    .addOption(new Option('--token <token>', 'admin bearer token (see `recsvc token create`)').env('RECSVC_TOKEN'))
    .addOption(new Option('--timeout <seconds>', 'give up on the server after this long').argParser(parsePositiveNumber).default(10));
}

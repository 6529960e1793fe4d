/** The work behind `recsvc serve` (loaded only when that command runs). */
import { loadServerConfig } from '../server/config.js';
import { startServer, stopOnSignals } from '../server/start.js';
import { seedDemoIfEmpty } from '../server/demo/demo.seed.js';
import { CliError } from './support/cli-error.js';
import { EXIT } from '../src/exit-codes.js';

export interface ServeOptions {
  cluster?: boolean;
  port?: string;
  host?: string;
  db?: string;
  logLevel?: string;
  rateLimit?: string;
  trustProxy?: string;
  publicUrl?: string;
  corsOrigins?: string;
  tlsCert?: string;
  tlsKey?: string;
  demo?: boolean;
  fasp?: boolean;
}

/** Why `listen` failed, for the errors an operator can fix by changing --host or --port. */
const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'the port is already in use (choose another with --port)',
  EADDRNOTAVAIL: 'the address is not available on this machine (check --host)',
  EACCES: 'permission denied (ports below 1024 need privileges; choose another with --port)',
  ENOTFOUND: 'the host name does not resolve (check --host)',
  EAI_AGAIN: 'the host name could not be resolved (check --host)',
};

/** Starts the server and keeps running until a signal stops it. */
export async function runServe(options: ServeOptions): Promise<void> {
  // Bad settings, an unreadable database and a refused migration are InputErrors: exit 2 through the funnel.
  const config = loadServerConfig(options);
  try {
    const server = await startServer(config, seedDemoIfEmpty);
    stopOnSignals(server);
  } catch (error) {
    const listenProblem = LISTEN_ERRORS[(error as NodeJS.ErrnoException).code ?? ''];
    if (listenProblem) throw new CliError(`cannot listen on ${config.host}:${config.port}: ${listenProblem}`, EXIT.usage);
    throw error;
  }
}

/** The work behind `recsvc serve` (loaded only when that command runs). */
import { ConfigError, loadServerConfig } from '../server/config.js';
import { DatabaseOpenError } from '../server/db/connection.js';
import { MigrationError } from '../server/db/migrate.js';
import { startServer, stopOnSignals } from '../server/start.js';
import { seedDemoIfEmpty } from '../server/demo/demo.seed.js';
import { CliError } from './support/cli-error.js';
import { EXIT } from './support/exit-codes.js';
import type { ServeOptions } from './serve.js';

/** Starts the server and keeps running until a signal stops it. */
export async function runServe(options: ServeOptions): Promise<void> {
  let config;
  try {
    config = loadServerConfig(options);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
  try {
    const server = await startServer(config, seedDemoIfEmpty);
    stopOnSignals(server);
  } catch (error) {
    if (error instanceof DatabaseOpenError || error instanceof MigrationError) throw new CliError(error.message, EXIT.usage);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError(`port ${config.port} on ${config.host} is already in use (choose another with --port)`, EXIT.usage);
    }
    throw error;
  }
}

/** `recsvc fasp`: register this service as a FASP provider with fediverse servers, on the server host. */
import type { Command } from 'commander';
import { registerFaspList } from './list.js';
import { registerFaspRegister } from './register.js';
import { registerFaspRemove } from './remove.js';
import { registerFaspShow } from './show.js';

const DB_OPTION = [
  '--db <path|url>',
  'SQLite database file or postgres:// URL (env RECSVC_DATABASE_URL or RECSVC_DB, default ./recsvc.db)',
] as const;

/** Registers the `fasp` group. */
export function registerFasp(program: Command): void {
  const fasp = program
    .command('fasp')
    .description('Fediverse Auxiliary Service Provider registrations (run on the server host, against the same --db; docs/fasp.md)')
    .addHelpText('after', "\nPrivate keys are stored sealed under RECSVC_FASP_KEY or the file '<db>.fasp-key' beside the database.");
  registerFaspRegister(fasp, DB_OPTION);
  registerFaspList(fasp, DB_OPTION);
  registerFaspShow(fasp, DB_OPTION);
  registerFaspRemove(fasp, DB_OPTION);
}

/** `recsvc fasp register`. */
import type { Command } from 'commander';
import type { FaspRegisterOptions } from './fasp.actions.js';

/** Registers `fasp register`. */
export function registerFaspRegister(fasp: Command, dbOption: readonly [string, string]): void {
  fasp
    .command('register')
    .description("register with a Mastodon server's FASP API: new keys, then print the fingerprint its admin compares")
    .argument('<server>', 'the server base URL, e.g. https://mastodon.example (or its FASP base, …/api/fasp)')
    .option('--name <name>', 'the name the server admin sees (env RECSVC_FASP_NAME, default recsvc)')
    .option(
      '--base-url <url>',
      "this service's FASP base URL (default: RECSVC_PUBLIC_URL + RECSVC_FASP_PATH, e.g. https://recs.example/fasp)",
    )
    .option(...dbOption)
    .option('--json', 'print the registration as JSON')
    .addHelpText(
      'after',
      `
Then, in Mastodon: Administration > Fediverse Auxiliary Service Providers, open the
new provider, check that its key fingerprint is the one printed here, confirm it and
enable the capabilities (trends). The server must run with EXPERIMENTAL_FEATURES=fasp.

Example:
  $ RECSVC_PUBLIC_URL=https://recs.example recsvc fasp register https://mastodon.example`,
    )
    .action(async (server: string, options: FaspRegisterOptions) => {
      const { runFaspRegister } = await import('./fasp.actions.js');
      await runFaspRegister(server, options);
    });
}

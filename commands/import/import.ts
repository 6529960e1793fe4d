/** `recsvc import posts|interactions FILE`: bring a community's history in through the API. */
import { Option, type Command } from 'commander';
import { IMPORT_KINDS, MAX_IMPORT_BATCH, type ImportKind } from '../../src/import/import-rows.js';
import { parsePositiveInt } from '../support/options.js';
import { addServerOptions } from '../support/server-options.js';
import type { ImportOptions } from './import.action.js';

const DESCRIPTIONS: Record<ImportKind, string> = {
  posts: 'import posts (statuses) from a CSV or JSON Lines file through POST /api/v1/posts/batch',
  interactions: 'import interactions with their times from a CSV or JSON Lines file through POST /api/v1/interactions/batch',
};

/** Registers the `import` group. */
export function registerImport(program: Command): void {
  const group = program
    .command('import')
    .description("bring a community's history in: posts, then interactions with their real times (docs/import.md)");
  for (const kind of IMPORT_KINDS) registerKind(group, kind);
}

function registerKind(group: Command, kind: ImportKind): void {
  const command = group
    .command(kind)
    .description(DESCRIPTIONS[kind])
    .argument('<file>', 'a .csv or .jsonl file (gzipped when it ends in .gz), or - for stdin (then give --format)')
    .addOption(new Option('--format <format>', 'csv or jsonl (default: from the file name)').choices(['csv', 'jsonl']))
    .option('--batch-size <n>', `items per request, 1 to ${MAX_IMPORT_BATCH}`, parsePositiveInt, MAX_IMPORT_BATCH)
    .option('--checkpoint <file>', 'where the last imported line is kept (default: <file>.checkpoint; none for stdin)')
    .option('--restart', 'ignore the checkpoint and import from the first line')
    .option('--json', 'print a JSON summary on stdout');
  addServerOptions(command)
    .addHelpText(
      'after',
      `
Each batch is stored whole or not at all. After each one the checkpoint records the last line
stored, so the same command run again (after a failure, or on a file that grew) goes on from
there; what is sent twice is stored once. A malformed or refused line stops the import with
one line naming the file and line (exit 2); the server unreachable exits 3. Columns and rules:
docs/import.md.

Examples:
  $ recsvc import posts posts.csv
  $ recsvc import interactions favourites.jsonl.gz --json`,
    )
    .action(async (file: string, options: ImportOptions) => {
      const { runImport } = await import('./import.action.js');
      await runImport(kind, file, options);
    });
}

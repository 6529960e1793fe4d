/** `recsvc experiment export <id>`. */
import type { Command } from 'commander';
import { parsePositiveInt } from '../support/options.js';
import { addServerOptions } from '../support/server-options.js';
import type { ExportOptions } from './export.action.js';

/** Registers `experiment export`. */
export function registerExport(group: Command): void {
  const command = group
    .command('export')
    .description(
      'stream the JSON Lines export (experiment, one line per user, team counts per user of an interleaving experiment, performance per variant)',
    )
    .argument('<id>', 'experiment id', parsePositiveInt)
    .option('-o, --output <file>', 'write to this file (gzipped when it ends in .gz) instead of stdout');
  addServerOptions(command)
    .addHelpText(
      'after',
      `
The file is the input of \`experiment analyze --file\` and \`gates check --file\`. Progress goes to stderr.

Examples:
  $ recsvc experiment export 7 -o exp7.jsonl
  $ recsvc experiment export 7 -o exp7.jsonl.gz && recsvc gates check --file exp7.jsonl.gz`,
    )
    .action(async (id: number, options: ExportOptions) => {
      const { runExport } = await import('./export.action.js');
      await runExport(id, options);
    });
}

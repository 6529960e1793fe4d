/** `recsvc experiment report`: a self-contained HTML page with charts, from the server or exported files. */
import { Option, type Command } from 'commander';
import { METRIC_NAMES } from '../../src/experiments/metrics.js';
import { parsePositiveInt } from '../support/options.js';
import { addServerOptions } from '../support/server-options.js';
import { addMethodOption } from './analyze-method.js';
import type { ReportOptions } from './report.action.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** Registers `experiment report`. */
export function registerReport(group: Command): void {
  const command = group
    .command('report')
    .description('write a self-contained HTML report: lift and its interval over time per metric, users per variant, gate verdicts')
    .argument('[id]', 'experiment id on the server (or use --file)', parsePositiveInt)
    .option('-f, --file <path>', 'a JSON Lines export (.gz read transparently); repeat for snapshots taken at different times', collect, [])
    .option('-o, --output <file>', 'where to write the page (default experiment-<id>-report.html)')
    .addOption(new Option('-m, --metric <name>', 'primary metric (shown first)').choices(METRIC_NAMES))
    .option('--json', 'print {"path", "bytes"} instead of the path');
  addMethodOption(command, "analysis method (default: the experiment's, recorded at creation)");
  addServerOptions(command).addHelpText(
    'after',
    `
The page needs no network to view: inline SVG charts and styles, no scripts, and a
Content-Security-Policy that forbids loading anything. Charts use the experiment's method:
with sequential analysis the bands are confidence sequences, valid at every point in time.
Each --file is one snapshot of the data (an export); its time is the export's "exported_at"
when it has one, else the file's modification time. With an id, the server's data now.

Examples:
  $ recsvc experiment report 7
  $ recsvc experiment report 7 -o reports/exp7.html --json
  $ recsvc experiment report --file mon.jsonl.gz --file tue.jsonl.gz --file wed.jsonl.gz`,
  );
  command.action(async (id: number | undefined, options: ReportOptions) => {
    const { runReport } = await import('./report.action.js');
    await runReport(id, options);
  });
}

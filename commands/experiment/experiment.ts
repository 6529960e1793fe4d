/** `recsvc experiment`: create, run and analyse A/B experiments. */
import type { Command } from 'commander';
import { registerAnalyze } from './analyze.js';
import { registerCreate } from './create.js';
import { registerDiff } from './diff.js';
import { registerExport } from './export.js';
import { registerList } from './list.js';
import { registerPause } from './pause.js';
import { registerPlan } from './plan.js';
import { registerReport } from './report.js';
import { registerStart } from './start.js';
import { registerStatus } from './status.js';
import { registerStop } from './stop.js';

/** Registers the `experiment` group. */
export function registerExperiment(program: Command): void {
  const experiment = program
    .command('experiment')
    .description('create, start, pause, stop, inspect, export and analyse A/B experiments')
    .addHelpText(
      'after',
      '\nServer commands read --server/RECSVC_SERVER (default http://127.0.0.1:8080) and need an admin --token/RECSVC_TOKEN.',
    );
  registerCreate(experiment);
  registerStart(experiment);
  registerPause(experiment);
  registerStop(experiment);
  registerList(experiment);
  registerStatus(experiment);
  registerExport(experiment);
  registerAnalyze(experiment);
  registerPlan(experiment);
  registerDiff(experiment);
  registerReport(experiment);
}

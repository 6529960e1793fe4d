/** `recsvc experiment`: create, run and analyse A/B experiments. */
import type { Command } from 'commander';
import { registerAnalyze } from './analyze.js';

/** Registers the `experiment` group. */
export function registerExperiment(program: Command): void {
  const experiment = program
    .command('experiment')
    .description('create, start, pause, stop, inspect, export and analyse A/B experiments')
    .addHelpText('after', '\nServer commands read --server/RECSVC_SERVER (default http://127.0.0.1:8080) and need an admin --token/RECSVC_TOKEN.');
  registerAnalyze(experiment);
}

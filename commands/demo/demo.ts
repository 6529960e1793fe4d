/** `recsvc demo`: tools for trying the service out on demo data. */
import type { Command } from 'commander';
import { registerTraffic } from './traffic.js';

/** Registers the `demo` group. */
export function registerDemo(program: Command): void {
  const demo = program
    .command('demo')
    .description('try the service out: a simulated community that fills an experiment (run against `recsvc serve --demo`)');
  registerTraffic(demo);
}

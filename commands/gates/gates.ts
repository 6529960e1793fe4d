/** `recsvc gates`: performance gates for CI pipelines. */
import type { Command } from 'commander';
import { registerGatesCheck } from './check.js';

/** Registers the `gates` group. */
export function registerGates(program: Command): void {
  const gates = program
    .command('gates')
    .description('check variants against the performance gates (for CI: exit 0 pass, 1 fail, 4 inconclusive)');
  registerGatesCheck(gates);
}

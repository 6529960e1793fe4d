/** `recsvc experiment stop <id>`. */
import type { Command } from 'commander';
import { registerTransition } from './transition.js';

/** Registers `experiment stop`. */
export function registerStop(group: Command): void {
  registerTransition(group, 'stop', 'stop an experiment for good (COMPLETED); its data stays for analysis', 'recsvc experiment stop 7');
}

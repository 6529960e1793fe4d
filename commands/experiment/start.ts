/** `recsvc experiment start <id>`. */
import type { Command } from 'commander';
import { registerTransition } from './transition.js';

/** Registers `experiment start`. */
export function registerStart(group: Command): void {
  registerTransition(group, 'start', 'start (or resume) an experiment: users begin to be assigned', 'recsvc experiment start 7');
}

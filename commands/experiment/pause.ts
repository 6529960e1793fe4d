/** `recsvc experiment pause <id>`. */
import type { Command } from 'commander';
import { registerTransition } from './transition.js';

/** Registers `experiment pause`. */
export function registerPause(group: Command): void {
  registerTransition(
    group,
    'pause',
    'pause an active experiment: its users get the default ranking meanwhile',
    'recsvc experiment pause 7',
  );
}

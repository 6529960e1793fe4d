/** `recsvc demo traffic`: a simulated community using the real API, with a known true effect. */
import type { Command } from 'commander';
import { parsePositiveInt, parsePositiveNumber } from '../support/options.js';
import { addServerOptions } from '../support/server-options.js';
import type { TrafficOptions } from './traffic.action.js';

/** Registers `demo traffic`. */
export function registerTraffic(group: Command): void {
  const command = group
    .command('traffic')
    .description(
      'drive simulated users through the real API (recommendations, impressions, clicks, feedback) so an experiment fills with a known true effect',
    )
    .requiredOption('-e, --experiment <id>', 'the running experiment to fill', parsePositiveInt)
    .option('--users <n>', 'simulated users (demo users user1 … userN)', parsePositiveInt, 500)
    .option('--duration <seconds>', 'stop after this long even if not every user is done', parsePositiveNumber, 60)
    .option('--lift <percent>', 'true relative lift of the click-through rate in every non-control variant, e.g. 5% or -3% or 0', '10%')
    .option('--ctr <share>', 'click probability per impression in the control variant', '0.1')
    .option('--seed <n>', 'seed of the simulation (same seed, same clicks)', parsePositiveInt, 1)
    .option('--concurrency <n>', 'users simulated at the same time', parsePositiveInt, 8)
    .option('--json', 'print the final summary as JSON');
  addServerOptions(command)
    .addHelpText(
      'after',
      `
Each simulated user asks the server for recommendations, so the server assigns them to a
variant by its own rule; the user then logs impressions for what it was shown, clicks each with
probability --ctr in the control variant and --ctr x (1 + --lift) in the others, and sometimes
favourites a clicked post or sends "more/less like this" feedback. Run it against a server
started with --demo, on an experiment that is running; then analyse the experiment.

Examples:
  $ recsvc demo traffic --experiment 1 --lift 10%
  $ recsvc demo traffic --experiment 1 --lift 0 --users 2000 --seed 7 --json
  $ recsvc experiment analyze 1`,
    )
    .action(async (options: TrafficOptions) => {
      const { runTraffic } = await import('./traffic.action.js');
      await runTraffic(options);
    });
}

/** `recsvc demo traffic`: a simulated community using the real API, with a known true effect. */
import type { Command } from 'commander';
import { POSTS_PER_VISIT } from '../../src/experiments/simulated-visit.js';
import { parsePositiveInt, parsePositiveNumber } from '../support/options.js';
import { addServerOptions } from '../support/server-options.js';
import type { TrafficOptions } from './traffic.options.js';

/** Registers `demo traffic`. */
export function registerTraffic(group: Command): void {
  const command = group
    .command('traffic')
    .description(
      'drive simulated users through the real API (recommendations, impressions, clicks, feedback) so an experiment fills with a known true effect',
    )
    .requiredOption('-e, --experiment <id>', 'the running experiment to fill', parsePositiveInt)
    .option('--users <n>', 'simulated users, user1 … userN (the demo data has user1 … user2000)', parsePositiveInt, 2000)
    .option('--duration <seconds>', 'stop after this long even if not every user is done', parsePositiveNumber, 60)
    .option('--lift <percent>', 'true relative lift of the click-through rate in every non-control variant, e.g. 5% or -3% or 0', '10%')
    .option('--ctr <share>', 'click probability per impression in the control variant', '0.1')
    .option('--seed <n>', 'seed of the simulation (same seed, same clicks)', parsePositiveInt, 1)
    .option('--concurrency <n>', 'users simulated at the same time', parsePositiveInt, 16)
    .option(
      '--db <path|url>',
      "the running server's database, where each simulated user gets its own short-lived token (env RECSVC_DATABASE_URL or RECSVC_DB, default ./recsvc.db)",
    )
    .option('--shared-token', 'send every request with --token instead of a token per user (the server then limits them all as one caller)')
    .option('--json', 'print the final summary as JSON');
  addServerOptions(command)
    .addHelpText(
      'after',
      `
Each simulated user asks the server for ${POSTS_PER_VISIT} recommendations, so the server assigns them to a
variant by its own rule and records an impression per post served; the user then reports a
session and its clicks (POST /api/v1/analytics/events), clicking each post with probability
--ctr in the control and --ctr x (1 + --lift) in the other variants, favourites some clicked
posts and sometimes sends "more/less like this" feedback. The same --seed gives the same choices.

Run it against a server started with --demo, on an ACTIVE A/B experiment that is the only open
one (a user is enrolled in one open experiment at a time). By default each simulated user gets
its own short-lived token, minted in the server's database (--db) like \`recsvc token create\`,
so the server's per-user rate limits apply as they do to real users; the tokens are revoked at
the end. --token (admin) reads the experiment. Progress on a terminal; a summary at the end.

Examples:
  $ recsvc demo traffic --experiment 1                       2000 users, +10% planted lift
  $ recsvc demo traffic --experiment 1 --lift 0 --seed 7     an A/A test: no true difference
  $ recsvc experiment status 1 --watch                       (in another terminal) watch it fill
  $ recsvc experiment analyze 1 && recsvc experiment report 1

See docs/demo-traffic.md for the whole tour.`,
    )
    .action(async (options: TrafficOptions) => {
      const { runTraffic } = await import('./traffic.action.js');
      await runTraffic(options);
    });
}

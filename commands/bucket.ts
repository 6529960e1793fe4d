/** `recsvc bucket`: which bucket and variant a user gets, by the spec's assignment rule. */
import type { Command } from 'commander';
import { EXPERIMENT_DEFAULTS } from '../src/experiments/experiment-defaults.js';
import { parsePositiveInt, parsePositiveNumber } from './support/options.js';
import { addServerOptions } from './support/server-options.js';
import type { BucketOptions } from './bucket.action.js';

/** Registers `bucket`. */
export function registerBucket(program: Command): void {
  const command = program
    .command('bucket')
    .description('show the bucket (0-99) and variant a user is assigned to')
    .argument('<user>', 'user id, or - to read user ids from stdin, one per line')
    .requiredOption('-e, --experiment <id>', 'experiment id (part of the hash input)', parsePositiveInt)
    .option('-a, --allocations <list>', 'variants and allocations in order, e.g. control=50,treatment=50')
    .option(
      '--traffic <percent>',
      `traffic_percentage with --allocations (default ${EXPERIMENT_DEFAULTS.traffic_percentage})`,
      parsePositiveNumber,
    )
    .option('--explain', 'show every step: hash input, MD5, first 8 hex digits, integer, bucket, owning range')
    .option('--json', 'one JSON object per user: {user_id, experiment_id, bucket, variant}');
  addServerOptions(command)
    .addHelpText(
      'after',
      `
The bucket is parseInt(md5("<user>_<experiment>").slice(0, 8), 16) % 100. The variant
needs the allocations: from --allocations, or read from the server when --server or
RECSVC_SERVER is set. Without either, only the bucket is printed. A user outside the
experiment's traffic_percentage gets variant null (not enrolled).

Examples:
  $ recsvc bucket alice --experiment 7 --allocations control=50,treatment=50
  $ recsvc bucket alice --experiment 7 --allocations a=40,b=20,c=20,d=20 --explain
  $ recsvc bucket alice --experiment 7 --server http://127.0.0.1:8080 --token $TOKEN
  $ cut -d, -f1 users.csv | recsvc bucket - --experiment 7 --allocations a=50,b=50 --json`,
    )
    .action(async (user: string, options: BucketOptions) => {
      const { runBucket } = await import('./bucket.action.js');
      await runBucket(user, options);
    });
}

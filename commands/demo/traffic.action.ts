/** The work behind `recsvc demo traffic` (being written; see docs/demo-traffic.md). */
import { usageError } from '../support/cli-error.js';
import type { ServerFlags } from '../support/server-options.js';

export interface TrafficOptions extends ServerFlags {
  experiment: number;
  users: number;
  duration: number;
  lift: string;
  ctr: string;
  seed: number;
  concurrency: number;
  json?: boolean;
}

/** Runs the simulation against the server. */
export async function runTraffic(options: TrafficOptions): Promise<void> {
  await Promise.resolve();
  throw usageError(`demo traffic for experiment ${options.experiment}: not implemented yet`);
}

/** The options of `recsvc demo traffic`, shared by its action, its identities and its view. */
import type { ServerFlags } from '../support/server-options.js';

export interface TrafficOptions extends ServerFlags {
  experiment: number;
  users: number;
  duration: number;
  lift: string;
  ctr: string;
  seed: number;
  concurrency: number;
  db?: string;
  sharedToken?: boolean;
  json?: boolean;
}

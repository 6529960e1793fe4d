/** The work behind `experiment start|pause|stop`. */
import { ExperimentSchema } from '../../src/experiments/experiment-response.schema.js';
import type { ExperimentAction } from '../../src/experiments/state-machine.js';
import { ApiClient } from '../support/api-client.js';
import { experimentSummary } from '../support/experiment-view.js';
import { printJson, printLine } from '../support/output.js';
import type { ServerFlags } from '../support/server-options.js';

export interface TransitionOptions extends ServerFlags {
  json?: boolean;
}

/** POSTs the action and prints the experiment's new state. */
export async function runTransition(action: ExperimentAction, id: number, options: TransitionOptions): Promise<void> {
  const client = new ApiClient(options);
  const experiment = await client.post(ApiClient.experimentsPath(id, action), ExperimentSchema);
  if (options.json) printJson(experiment);
  else printLine(experimentSummary(experiment));
}

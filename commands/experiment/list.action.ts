/** The work behind `experiment list`. */
import { ExperimentSchema } from '../../src/experiments/experiment-response.schema.js';
import { ApiClient } from '../support/api-client.js';
import { renderExperimentList } from '../support/experiment-view.js';
import { printJson, printLine } from '../support/output.js';
import type { ServerFlags } from '../support/server-options.js';

export interface ListOptions extends ServerFlags {
  status?: string;
  json?: boolean;
}

/** GETs every page of the list (optionally by status) and prints a table or JSON. */
export async function runList(options: ListOptions): Promise<void> {
  const client = new ApiClient(options);
  const query = options.status === undefined ? '' : `?status=${encodeURIComponent(options.status)}`;
  const experiments = await client.getAll(`${ApiClient.experimentsPath()}${query}`, ExperimentSchema);
  if (options.json) printJson(experiments);
  else printLine(renderExperimentList(experiments));
}

/** The work behind `experiment status`. */
import { ExperimentStatusSchema } from '../../src/experiments/experiment-response.schema.js';
import { ApiClient } from '../support/api-client.js';
import { renderStatus } from '../support/experiment-view.js';
import { printJson, printLine, warn } from '../support/output.js';
import type { StatusOptions } from './status.js';

/** GETs the status report and prints it with bars, or as JSON. */
export async function runStatus(id: number, options: StatusOptions): Promise<void> {
  const client = new ApiClient(options);
  const report = await client.get(ApiClient.experimentsPath(id, 'status'), ExperimentStatusSchema);
  if (report.srm.mismatch)
    warn(`experiment ${id}: sample ratio mismatch (p = ${report.srm.p_value?.toExponential(2)}): users are not split as allocated`);
  if (options.json) printJson(report);
  else printLine(renderStatus(report));
}

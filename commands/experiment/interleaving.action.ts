/**
 * `experiment status` and `analyze` for an interleaving experiment: one call at the top of
 * each asks the experiment's type and, for `interleaving`, prints the preference-share
 * analysis (or its JSON) instead of the A/B report.
 */
import { Type } from '@sinclair/typebox';
import { ExperimentTypeSchema } from '../../src/experiments/interleaving/experiment-type.js';
import { InterleavingAnalysisSchema } from '../../src/experiments/interleaving/interleaving-analysis.schema.js';
import { interleavingResult } from '../../src/experiments/interleaving/interleaving-result.js';
import { ApiClient } from '../support/api-client.js';
import { printJson, printLine } from '../support/output.js';
import type { OfflineData } from '../support/offline-data.js';
import type { ServerFlags } from '../support/server-options.js';
import { methodQuery, type MethodFlags } from './analyze-method.js';
import { renderInterleaving } from './interleaving.view.js';

/** What is read of the experiment: its name, status and type (absent from servers before interleaving). */
const ExperimentTypeProbeSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  status: Type.String(),
  type: Type.Optional(ExperimentTypeSchema),
});

/**
 * Prints the interleaving analysis when experiment `id` is an interleaving one, by its recorded
 * method unless --method overrides it; false (nothing printed) otherwise.
 */
export async function printInterleaving(id: number, options: ServerFlags & MethodFlags & { json?: boolean }): Promise<boolean> {
  const client = new ApiClient(options);
  const experiment = await client.get(ApiClient.experimentsPath(id), ExperimentTypeProbeSchema);
  if (experiment.type !== 'interleaving') return false;
  const query = methodQuery(options.method);
  const path = `${ApiClient.experimentsPath(id, 'analysis')}${query === '' ? '' : `?${query}`}`;
  const analysis = await client.get(path, InterleavingAnalysisSchema);
  if (options.json) printJson(analysis);
  else printLine(renderInterleaving(analysis, `Experiment ${id} "${experiment.name}" (${experiment.status})`));
  return true;
}

/**
 * Prints the interleaving analysis of an interleaving experiment's export (its interleaving
 * lines through the server's own analysis, so the numbers are the same); false otherwise.
 */
export function printOfflineInterleaving(data: OfflineData, options: MethodFlags & { json?: boolean }): boolean {
  const design = data.design as OfflineData['design'] & { type?: unknown; analysis_method?: string };
  if (data.interleaving === undefined || design.type !== 'interleaving') return false;
  const id = Number.isInteger(Number(design.id)) ? Number(design.id) : 0;
  const analysis = interleavingResult({ ...design, id }, data.interleaving, options.method);
  if (options.json) printJson(analysis);
  else {
    const name = design.name === undefined ? '' : ` "${design.name}"`;
    printLine(renderInterleaving(analysis, `Experiment ${design.id ?? ''}${name} (from ${data.file})`));
  }
  return true;
}

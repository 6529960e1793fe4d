/** The work behind `experiment status`. */
import type { AnalysisResult } from '../../src/experiments/analysis.js';
import { ExperimentAnalysisSchema } from '../../src/experiments/experiment-analysis.schema.js';
import { ExperimentStatusSchema } from '../../src/experiments/experiment-response.schema.js';
import { ApiClient } from '../support/api-client.js';
import { renderStatus } from '../support/experiment-view.js';
import { printJson, printLine, warn } from '../support/output.js';
import { methodQuery } from './analyze-method.js';
import { methodLine, primaryVerdictLines } from './analyze-method.view.js';
import type { StatusOptions } from './status.js';

/**
 * GETs the status report, then the analysis with the experiment's method (or --method), and
 * prints them with bars and the primary metric's verdict, or as JSON: the status report plus
 * `analysis_method` and the spec's `statistical_significance` for the primary metric.
 */
export async function runStatus(id: number, options: StatusOptions): Promise<void> {
  const client = new ApiClient(options);
  const report = await client.get(ApiClient.experimentsPath(id, 'status'), ExperimentStatusSchema);
  const query = methodQuery(options.method);
  const path = `${ApiClient.experimentsPath(id, 'analysis')}${query === '' ? '' : `?${query}`}`;
  // The wire form of AnalysisResult (experiment-analysis.schema.test.ts keeps the two equal).
  const analysis = (await client.get(path, ExperimentAnalysisSchema)) as AnalysisResult;
  if (report.srm.mismatch)
    warn(`experiment ${id}: sample ratio mismatch (p = ${report.srm.p_value?.toExponential(2)}): users are not split as allocated`);
  if (options.json) {
    printJson({ ...report, analysis_method: analysis.analysis_method, statistical_significance: analysis.statistical_significance });
    return;
  }
  printLine([renderStatus(report), methodLine(analysis), ...primaryVerdictLines(analysis)].join('\n'));
}

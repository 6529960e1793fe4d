/** The work behind `experiment status`. */
import type { AnalysisResult } from '../../src/experiments/stats/analysis.js';
import { ExperimentAnalysisSchema } from '../../src/experiments/experiment-analysis.schema.js';
import { ExperimentStatusSchema } from '../../src/experiments/experiment-response.schema.js';
import { ApiClient } from '../support/api-client.js';
import { renderStatus } from '../support/experiment-view.js';
import { printJson, printLine, warn } from '../support/output.js';
import { methodQuery, type MethodFlags } from './analyze-method.js';
import { methodLine, primaryVerdictLines } from './analyze-method.view.js';
import { guardrailLines, instanceTable, rolesTable } from './roles.view.js';
import { printInterleaving } from './interleaving.action.js';
import type { ServerFlags } from '../support/server-options.js';
import type { WatchFlags } from './status-watch.js';

export interface StatusOptions extends ServerFlags, MethodFlags, WatchFlags {
  json?: boolean;
  byInstance?: boolean;
}

/**
 * GETs the status report, then the analysis with the experiment's method (or --method), and
 * prints them with bars, the metric roles and the decision drawn from the primary metric, or as
 * JSON: the status report plus `analysis_method`, the spec's `statistical_significance` for the
 * primary metric, the roles, guardrails and decision (and `by_instance` with --by-instance).
 */
export async function runStatus(id: number, options: StatusOptions): Promise<void> {
  const client = new ApiClient(options);
  if (await printInterleaving(id, options)) return;
  const report = await client.get(ApiClient.experimentsPath(id, 'status'), ExperimentStatusSchema);
  const query = [methodQuery(options.method), options.byInstance ? 'by_instance=true' : ''].filter((part) => part !== '').join('&');
  const path = `${ApiClient.experimentsPath(id, 'analysis')}${query === '' ? '' : `?${query}`}`;
  // The wire form of AnalysisResult (experiment-analysis.schema.test.ts keeps the two equal).
  const analysis = (await client.get(path, ExperimentAnalysisSchema)) as AnalysisResult;
  if (report.srm.mismatch)
    warn(`experiment ${id}: sample ratio mismatch (p = ${report.srm.p_value?.toExponential(2)}): users are not split as allocated`);
  if (options.json) {
    printJson({
      ...report,
      analysis_method: analysis.analysis_method,
      statistical_significance: analysis.statistical_significance,
      primary_metric: analysis.primary_metric,
      guardrail_metrics: analysis.guardrail_metrics,
      metric_roles: analysis.metric_roles,
      guardrails: analysis.guardrails,
      decision: analysis.decision,
      ...(options.byInstance ? { by_instance: analysis.by_instance ?? [] } : {}),
    });
    return;
  }
  const byInstance = options.byInstance ? ['', 'By instance', instanceTable(analysis)] : [];
  // The decision: the primary metric's verdict alone, then what the guardrails say beside it.
  const lines = [
    renderStatus(report),
    methodLine(analysis),
    rolesTable(analysis),
    ...primaryVerdictLines(analysis),
    ...guardrailLines(analysis),
  ];
  printLine([...lines, ...byInstance].join('\n'));
}

/** The work behind `recsvc experiment analyze`: one analysis function, online or offline. */
import { analyzeExperiment, type AnalysisOptions, type AnalysisResult } from '../../src/experiments/stats/analysis.js';
import { isMetricName, type MetricName } from '../../src/experiments/metrics.js';
import { renderAnalysis, type AnalysisContext } from '../support/analysis-view.js';
import { usageError } from '../support/cli-error.js';
import { printJson, printLine, warn } from '../support/output.js';
import { methodQuery, type MethodFlags } from './analyze-method.js';
import { methodLine } from './analyze-method.view.js';
import { decisionLines, rolesTable } from './roles.view.js';
import { printInterleaving, printOfflineInterleaving } from './interleaving.action.js';
import type { OfflineFlags } from '../support/offline-data.js';
import type { ServerFlags } from '../support/server-options.js';

export interface AnalyzeOptions extends ServerFlags, Partial<OfflineFlags>, MethodFlags {
  metric?: MetricName;
  json?: boolean;
  byInstance?: boolean;
}

/** Analyses from the server (id) or a file (--file) and prints the report or JSON. */
export async function runAnalyze(id: number | undefined, options: AnalyzeOptions): Promise<void> {
  if (id !== undefined && options.file === undefined && (await printInterleaving(id, options))) return;
  const read = options.file !== undefined ? await offline(id, options) : await online(id, options);
  if (read === undefined) return;
  const { result, context } = read;
  if (result.srm.mismatch) {
    warn(
      `sample ratio mismatch (chi-square ${result.srm.chi_square?.toFixed(2)}, p = ${result.srm.p_value?.toExponential(2)}): users are not split as allocated; do not trust these results`,
    );
  }
  if (options.json) printJson(result);
  else
    printLine(
      [renderAnalysis(result, { ...context, title: `${context.title}\n${methodLine(result)}` }), ...roleSection(result)].join('\n'),
    );
}

/** The A/B analysis of a file; undefined when the file was an interleaving experiment's export (printed here). */
async function offline(
  id: number | undefined,
  options: AnalyzeOptions,
): Promise<{ result: AnalysisResult; context: AnalysisContext } | undefined> {
  if (id !== undefined) throw usageError('give an experiment id (server) or --file (offline), not both');
  const { loadOfflineData } = await import('../support/offline-data.js');
  const data = await loadOfflineData({ ...options, file: options.file as string });
  if (printOfflineInterleaving(data, options)) return undefined;
  const fromFile = data.design.primary_metric;
  const primaryMetric = options.metric ?? (isMetricName(fromFile) ? fromFile : undefined);
  // The export's roles (primary_metric, guardrail_metrics on its experiment line) come with data.design.
  const instances = (data as { instances?: AnalysisOptions['instances'] }).instances;
  const result = analyzeExperiment(data.design, data.accumulators, {
    ...(primaryMetric === undefined ? {} : { primaryMetric }),
    ...(options.method === undefined ? {} : { method: options.method }),
    ...(instances === undefined || options.byInstance !== true ? {} : { instances }),
  });
  const name = data.design.name === undefined ? '' : ` "${data.design.name}"`;
  const title = data.design.id === undefined ? `Analysis of ${data.file}` : `Experiment ${data.design.id}${name} (from ${data.file})`;
  return { result, context: { title, allocations: allocationsOf(data.design.variants) } };
}

async function online(id: number | undefined, options: AnalyzeOptions): Promise<{ result: AnalysisResult; context: AnalysisContext }> {
  if (id === undefined) throw usageError('give an experiment id (read from the server) or --file F (offline)');
  for (const flag of ['allocations', 'control', 'experimentFile'] as const) {
    if (options[flag] !== undefined)
      throw usageError(`--${flag === 'experimentFile' ? 'experiment-file' : flag} is only for --file with a CSV`);
  }
  const [{ ApiClient }, { ExperimentSchema }, { ExperimentAnalysisSchema }] = await Promise.all([
    import('../support/api-client.js'),
    import('../../src/experiments/experiment-response.schema.js'),
    import('../../src/experiments/experiment-analysis.schema.js'),
  ]);
  const client = new ApiClient(options);
  const params = [
    options.metric === undefined ? '' : `metric=${options.metric}`,
    methodQuery(options.method),
    options.byInstance ? 'by_instance=true' : '',
  ].filter((p) => p !== '');
  const query = params.length === 0 ? '' : `?${params.join('&')}`;
  const [served, experiment] = await Promise.all([
    client.get(`${ApiClient.experimentsPath(id, 'analysis')}${query}`, ExperimentAnalysisSchema),
    options.json ? undefined : client.get(ApiClient.experimentsPath(id), ExperimentSchema),
  ]);
  // The wire form of AnalysisResult (experiment-analysis.schema.test.ts keeps the two equal), which types metric names as strings.
  const result = served as AnalysisResult;
  const title = experiment === undefined ? `Experiment ${id}` : `Experiment ${id} "${experiment.name}" (${experiment.status})`;
  return { result, context: { title, allocations: allocationsOf(experiment?.variants ?? []) } };
}

function allocationsOf(variants: readonly { name: string; traffic_allocation: number }[]): Record<string, number> {
  return Object.fromEntries(variants.map((v) => [v.name, v.traffic_allocation]));
}

/** The metric roles and the decision drawn from the primary metric (the per-instance table is `status --by-instance`'s; --json has by_instance). */
function roleSection(result: AnalysisResult): string[] {
  return ['Metric roles (the decision is drawn from the primary metric alone)', rolesTable(result), '', ...decisionLines(result)];
}

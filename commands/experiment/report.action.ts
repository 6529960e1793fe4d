/** The work behind `recsvc experiment report`: exports in (files or the server's), one HTML file out. */
import { stat, writeFile } from 'node:fs/promises';
import { createJsonlExportParser, parseChunks, type LineParser, type ParsedExport } from '../../src/experiments/io/export-format.js';
import { renderReportHtml } from '../../src/experiments/report/report-html.js';
import { buildReportModel, plottedTime, type ReportDesign, type ReportSnapshot } from '../../src/experiments/report/report-model.js';
import { createTimelineExportParser, type ExportTimeline } from '../../src/experiments/report/timeline.js';
import { usageError } from '../support/cli-error.js';
import { openLineSource } from '../support/line-source.js';
import { printJson, printLine } from '../support/output.js';
import type { MetricName } from '../../src/experiments/metrics.js';
import type { ServerFlags } from '../support/server-options.js';
import type { MethodFlags } from './analyze-method.js';

export interface ReportOptions extends ServerFlags, MethodFlags {
  file: string[];
  output?: string;
  metric?: MetricName;
  json?: boolean;
}

interface Loaded {
  design: ReportDesign;
  snapshot: ReportSnapshot;
  timeline: ExportTimeline;
  source: string;
}

/** Reads the exports (server or files), renders the page, writes it and prints where. */
export async function runReport(id: number | undefined, options: ReportOptions): Promise<void> {
  const loaded = options.file.length > 0 ? await offline(id, options.file) : [await online(id, options)];
  const latest = loaded.reduce((a, b) => (b.snapshot.at >= a.snapshot.at ? b : a));
  const kind = latest.design as { type?: unknown; experiment_type?: unknown };
  if (kind.type === 'interleaving' || kind.experiment_type === 'interleaving')
    throw usageError(
      `${latest.source} is an interleaving experiment: the report charts A/B comparisons; use recsvc experiment analyze for its preference share`,
    );
  const { snapshots, ...time } = plottedTime(loaded);
  const model = buildReportModel(latest.design, snapshots, {
    ...time,
    source: loaded.map((l) => l.source).join(', '),
    generatedAt: Date.now(),
    ...(options.method === undefined ? {} : { method: options.method }),
    ...(options.metric === undefined ? {} : { primaryMetric: options.metric }),
  });
  const html = renderReportHtml(model);
  const experimentId = id ?? latest.design.id;
  const path = options.output ?? (experimentId === undefined ? 'experiment-report.html' : `experiment-${String(experimentId)}-report.html`);
  try {
    await writeFile(path, html);
  } catch (error) {
    throw usageError(`-o ${path}: cannot write the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (options.json) printJson({ path, bytes: Buffer.byteLength(html) });
  else printLine(path);
}

/** The export parser with its timeline, refusing a CSV (it carries no experiment) at its first line. */
function exportParser(source: string): LineParser<{ parsed: ParsedExport; timeline: ExportTimeline }> {
  const parser = createTimelineExportParser(createJsonlExportParser(source), source);
  let sniffed = false;
  return {
    line(text) {
      if (!sniffed && text.trim() !== '') {
        sniffed = true;
        if (!/^\uFEFF?\s*\{/.test(text))
          throw usageError(
            `${source} is a CSV: the report reads JSON Lines exports (recsvc experiment export), which carry the experiment`,
          );
      }
      parser.line(text);
    },
    finish: () => parser.finish(),
  };
}

/** Each file one snapshot, at its export time (exported_at) or else its modification time; all of one experiment. */
async function offline(id: number | undefined, files: string[]): Promise<Loaded[]> {
  if (id !== undefined) throw usageError('give an experiment id (server) or --file (offline), not both');
  const loaded: Loaded[] = [];
  for (const file of files) {
    const source = await openLineSource(file);
    const { parsed, timeline } = await parseChunks(source.chunks, exportParser(file));
    const design = parsed.experiment as ReportDesign & { exported_at?: unknown };
    const exportedAt = typeof design.exported_at === 'string' ? Date.parse(design.exported_at) : Number.NaN;
    const at = Number.isFinite(exportedAt) ? exportedAt : (await stat(file)).mtimeMs;
    loaded.push({ design, source: file, timeline, snapshot: { at, accumulators: parsed.accumulators, performance: parsed.performance } });
  }
  const first = loaded[0] as Loaded;
  const names = (l: Loaded) => l.design.variants.map((v) => v.name).join(',');
  for (const other of loaded.slice(1)) {
    if (other.design.id !== first.design.id || names(other) !== names(first))
      throw usageError(
        `${other.source} is not a snapshot of the same experiment as ${first.source} (id ${String(other.design.id)} vs ${String(first.design.id)}, variants ${names(other)} vs ${names(first)})`,
      );
  }
  return loaded;
}

/** A byte stream as text chunks (a character split across chunks is kept whole). */
async function* decode(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for await (const chunk of body) yield typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

/** The server's export, streamed through the same parser as a file: one snapshot, now (plus its days when it has them). */
async function online(id: number | undefined, options: ReportOptions): Promise<Loaded> {
  if (id === undefined) throw usageError('give an experiment id (read from the server) or --file F (offline)');
  const { ApiClient } = await import('../support/api-client.js');
  const client = new ApiClient(options);
  const { body } = await client.stream(ApiClient.experimentsPath(id, 'export'));
  const source = `${client.baseUrl} (experiment ${id})`;
  const { parsed, timeline } = await parseChunks(decode(body), exportParser(source));
  return {
    design: parsed.experiment,
    source,
    timeline,
    snapshot: { at: Date.now(), accumulators: parsed.accumulators, performance: parsed.performance },
  };
}

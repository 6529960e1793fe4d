/**
 * The work behind `recsvc import`: stream the file's records, send them in batches to the
 * batch routes (each stored whole or not at all), record the last stored line after each, and
 * map a refused item back to its line. Progress on a terminal's stderr; a summary at the end.
 */
import { Type } from '@sinclair/typebox';
import { EXIT } from '../../src/exit-codes.js';
import { InteractionBatchResultSchema } from '../../src/schemas/interaction.schema.js';
import { MAX_IMPORT_BATCH, type ImportKind } from '../../src/import/import-rows.js';
import { ApiClient } from '../support/api-client.js';
import { ApiError, CliError, usageError } from '../support/cli-error.js';
import { openLineSource, type LineSource } from '../support/line-source.js';
import { waitingAsAsked } from '../support/server-waits.js';
import { formatCount, printJson, printLine, progressDone, throttledProgress, warn } from '../support/output.js';
import { readCheckpoint, writeCheckpoint } from './import-checkpoint.js';
import { formatOfPath, lineError, readRecords, type ImportRecord } from './import-records.js';
import type { ServerFlags } from '../support/server-options.js';

export interface ImportOptions extends ServerFlags {
  format?: 'csv' | 'jsonl';
  batchSize: number;
  checkpoint?: string;
  restart?: boolean;
  json?: boolean;
}

/** What an import did, as `--json` prints it. */
export interface ImportSummary {
  kind: ImportKind;
  file: string;
  format: 'csv' | 'jsonl';
  /** Records read (blank lines and the CSV header are not records). */
  records: number;
  /** Records skipped because the checkpoint says they were stored by an earlier run. */
  skipped: number;
  /** Records sent and stored by this run. */
  sent: number;
  batches: number;
  /** The checkpoint's line when this run started (0: from the start). */
  resumed_after_line: number;
  /** The last line stored (the checkpoint's line now). */
  last_line: number;
  checkpoint: string | null;
  /** Interactions: new, already there (unchanged), not stored (their user's tracking level is none). */
  created?: number;
  existing?: number;
  not_stored?: number;
  /** Interactions dated before the record sent before them (the collaborative signal wants the file oldest first). */
  out_of_order?: number;
}

const PATHS: Record<ImportKind, string> = { posts: '/api/v1/posts/batch', interactions: '/api/v1/interactions/batch' };
/** Items are named `statuses[i]…` or `interactions[i]…` in the batch routes' error fields. */
const ITEM_FIELD = /^(statuses|interactions)\[(\d+)\]\.?(.*)$/;

/** Imports the file (see the command's help). */
export async function runImport(kind: ImportKind, file: string, options: ImportOptions): Promise<void> {
  const format = options.format ?? formatOfPath(file);
  if (format === undefined) throw usageError(`${file}: cannot tell the format from the name: pass --format csv or --format jsonl`);
  if (options.batchSize > MAX_IMPORT_BATCH) throw usageError(`--batch-size: at most ${MAX_IMPORT_BATCH}`);
  const checkpointPath = options.checkpoint ?? (file === '-' ? undefined : `${file}.checkpoint`);
  const resumeAfter =
    checkpointPath === undefined || options.restart === true ? 0 : ((await readCheckpoint(checkpointPath, kind))?.line ?? 0);
  const client = new ApiClient(options);
  const source = await openLineSource(file);
  const summary: ImportSummary = {
    kind,
    file,
    format,
    records: 0,
    skipped: 0,
    sent: 0,
    batches: 0,
    resumed_after_line: resumeAfter,
    last_line: resumeAfter,
    checkpoint: checkpointPath ?? null,
    ...(kind === 'interactions' ? { created: 0, existing: 0, not_stored: 0, out_of_order: 0 } : {}),
  };
  let previousMs = -Infinity;
  const send = async (batch: ImportRecord[]): Promise<void> => {
    await sendBatch(client, kind, batch, summary, source.name);
    summary.last_line = batch.at(-1)!.line;
    if (checkpointPath !== undefined) await writeCheckpoint(checkpointPath, { kind, line: summary.last_line });
  };
  const report = throttledProgress(() => progressLine(summary, source));
  try {
    let batch: ImportRecord[] = [];
    for await (const record of readRecords(kind, format, source)) {
      summary.records += 1;
      if (record.line <= resumeAfter) {
        summary.skipped += 1;
        continue;
      }
      batch.push(record);
      if (kind === 'interactions') {
        const atMs = typeof record.item.created_at === 'string' ? Date.parse(record.item.created_at) : Number.NaN;
        if (atMs < previousMs) summary.out_of_order! += 1;
        if (!Number.isNaN(atMs)) previousMs = atMs;
      }
      if (batch.length >= options.batchSize) {
        await send(batch);
        batch = [];
      }
      report();
    }
    if (batch.length > 0) await send(batch);
  } catch (error) {
    throw withResumeHint(error, summary);
  } finally {
    progressDone();
  }
  if ((summary.out_of_order ?? 0) > 0) {
    warn(
      `${formatCount(summary.out_of_order!)} interactions of ${file} are older than the one before them: every decay counts from ` +
        "each one's own time, but the collaborative signal pairs an interaction only with the user's earlier ones, so import " +
        'interactions sorted oldest first (docs/import.md)',
    );
  }
  if (options.json === true) printJson(summary);
  else printLine(summaryLine(summary));
}

/**
 * Sends one batch, waiting and sending it again when the server asks (a batch is idempotent,
 * so sending it twice stores it once); a refused item becomes an input error naming its line.
 */
function sendBatch(client: ApiClient, kind: ImportKind, batch: ImportRecord[], summary: ImportSummary, file: string): Promise<void> {
  return waitingAsAsked(() => sendOnce(client, kind, batch, summary, file));
}

async function sendOnce(client: ApiClient, kind: ImportKind, batch: ImportRecord[], summary: ImportSummary, file: string): Promise<void> {
  const items = batch.map((record) => record.item);
  try {
    if (kind === 'posts') {
      await client.postBare(PATHS.posts, Type.Array(Type.Object({ id: Type.String() })), { statuses: items });
    } else {
      const result = await client.post(PATHS.interactions, InteractionBatchResultSchema, { interactions: items });
      summary.created! += result.created;
      summary.existing! += result.existing;
      summary.not_stored! += result.not_stored;
    }
  } catch (error) {
    throw refusedItem(error, batch, file) ?? error;
  }
  summary.sent += batch.length;
  summary.batches += 1;
}

/** The server refused one item of the batch (400 or 404 naming `interactions[i]…`): `FILE:LINE: field: why`. */
function refusedItem(error: unknown, batch: readonly ImportRecord[], file: string): CliError | undefined {
  if (!(error instanceof ApiError) || error.status >= 500 || error.field === undefined) return undefined;
  const match = ITEM_FIELD.exec(error.field);
  const record = match === null ? undefined : batch[Number(match[2])];
  if (match === null || record === undefined) return undefined;
  // The line stands for the item: its index goes from the message, and the field leads it unless named already.
  const reason = error.serverMessage.replaceAll(`${match[1]}[${match[2]}].`, '');
  const field = match[3] ?? '';
  return lineError(file, record.line, field === '' || reason.includes(field) ? reason : `${field}: ${reason}`);
}

/** Says where a failed import stands and how to go on. */
function withResumeHint(error: unknown, summary: ImportSummary): unknown {
  if (!(error instanceof CliError) || summary.checkpoint === null) return error;
  const stored =
    summary.last_line === 0 ? 'nothing of this file is stored' : `lines up to ${summary.last_line} are stored (${summary.checkpoint})`;
  const fix = error.exitCode === EXIT.usage ? 'fix the line, then run' : 'run';
  const hint = `${stored}: ${fix} the same command again to go on from there`;
  return new CliError(error.message, error.exitCode, { hint, ...(error.requestId === undefined ? {} : { requestId: error.requestId }) });
}

function summaryLine(s: ImportSummary): string {
  const resumed = s.skipped > 0 ? `; ${formatCount(s.skipped)} records up to line ${s.resumed_after_line} skipped (imported before)` : '';
  const outcome =
    s.kind === 'interactions'
      ? `: ${formatCount(s.created ?? 0)} new, ${formatCount(s.existing ?? 0)} already there, ${formatCount(s.not_stored ?? 0)} not stored (tracking level none)`
      : '';
  const batches = `${formatCount(s.batches)} ${s.batches === 1 ? 'batch' : 'batches'}`;
  return `imported ${formatCount(s.sent)} ${s.kind} from ${s.file} in ${batches}${outcome}${resumed}`;
}

function progressLine(s: ImportSummary, source: LineSource): string {
  const counts = `${formatCount(s.sent)} sent, ${formatCount(s.records)} read`;
  if (source.size === undefined || source.size === 0) return `importing ${s.kind}: ${counts}`;
  const fraction = Math.min(1, source.bytesRead() / source.size);
  const width = 24;
  const filled = Math.round(fraction * width);
  return `importing ${s.kind} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(fraction * 100)}% ${counts}`;
}

/**
 * The records of an import file, streamed: CSV (RFC 4180 through csv-parse: quoted cells may
 * hold commas, quotes and newlines) or JSON Lines, each with the line it ends on. A record the
 * importer cannot read is an input error `FILE:LINE: why` (exit 2).
 */
import { Readable } from 'node:stream';
import { parse, CsvError } from 'csv-parse';
import { canonicalHeader, checkCsvHeader, itemFromCsv, itemFromJson, RowError, type ImportKind } from '../../src/import/import-rows.js';
import { usageError, type CliError } from '../support/cli-error.js';
import { isGzipPath, type LineSource } from '../support/line-source.js';

export type ImportFormat = 'csv' | 'jsonl';

/** One item for the API and the line of the file it ends on. */
export interface ImportRecord {
  line: number;
  item: Record<string, unknown>;
}

/** The format a file name says (`.csv`, `.jsonl` / `.ndjson`, either gzipped); undefined when it says none. */
export function formatOfPath(path: string): ImportFormat | undefined {
  const name = (isGzipPath(path) ? path.slice(0, -3) : path).toLowerCase();
  if (name.endsWith('.csv')) return 'csv';
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson')) return 'jsonl';
  return undefined;
}

/** An input error naming the file and line. */
export function lineError(file: string, line: number, message: string): CliError {
  return usageError(`${file}:${line}: ${message}`);
}

/** The records of `source`, in file order. */
export function readRecords(kind: ImportKind, format: ImportFormat, source: LineSource): AsyncIterable<ImportRecord> {
  return format === 'csv' ? csvRecords(kind, source) : jsonlRecords(kind, source);
}

async function* jsonlRecords(kind: ImportKind, source: LineSource): AsyncGenerator<ImportRecord> {
  let line = 0;
  for await (const text of source.lines) {
    line += 1;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw lineError(source.name, line, `not valid JSON (${(error as Error).message})`);
    }
    try {
      yield { line, item: itemFromJson(kind, value) };
    } catch (error) {
      throw asLineError(source.name, line, error);
    }
  }
}

async function* csvRecords(kind: ImportKind, source: LineSource): AsyncGenerator<ImportRecord> {
  const parser = Readable.from(source.chunks).pipe(
    parse({
      bom: true,
      skip_empty_lines: true,
      info: true,
      columns: (header: string[]) => {
        const columns = canonicalHeader(kind, header);
        try {
          checkCsvHeader(kind, columns);
        } catch (error) {
          throw asLineError(source.name, 1, error);
        }
        return columns;
      },
    }),
  );
  try {
    for await (const record of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      const line = record.info.lines;
      let item: Record<string, unknown>;
      try {
        item = itemFromCsv(kind, record.record);
      } catch (error) {
        throw asLineError(source.name, line, error);
      }
      yield { line, item };
    }
  } catch (error) {
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines;
      throw line === undefined ? usageError(`${source.name}: ${error.message}`) : lineError(source.name, line, csvReason(error));
    }
    throw error;
  } finally {
    parser.destroy();
  }
}

/** csv-parse's message without its own "at line N" (the line leads the message already). */
function csvReason(error: CsvError): string {
  return error.message.replace(/,? at line \d+/i, '');
}

function asLineError(file: string, line: number, error: unknown): unknown {
  return error instanceof RowError ? lineError(file, line, error.message) : error;
}

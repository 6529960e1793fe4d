/**
 * Files as streams of lines for the offline commands: a path (gzip-decompressed when
 * it ends in `.gz`) or `-` for stdin. Lines are split by hand rather than with
 * readline so that read and gunzip errors surface in the `for await` loop, and so
 * progress can be reported from the bytes read.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { usageError } from './cli-error.js';

/** An open source of lines and what is known about its size for a progress line. */
export interface LineSource {
  /** The name used in messages: the path, or `<stdin>`. */
  name: string;
  /** Size on disk in bytes (compressed size for .gz), when known. */
  size: number | undefined;
  /** Bytes consumed so far from disk (compressed bytes for .gz). */
  bytesRead(): number;
  /** Decoded text chunks (the fastest way to feed a parser: see parseChunks). */
  chunks: AsyncIterable<string>;
  /** The same text split into lines, without their LF or CRLF. */
  lines: AsyncIterable<string>;
}

/** Whether a path is read through gunzip. */
export function isGzipPath(path: string): boolean {
  return path.toLowerCase().endsWith('.gz');
}

/** Opens `path` (or `-` for stdin) for reading line by line; unreadable files are usage errors naming the file. */
export async function openLineSource(path: string): Promise<LineSource> {
  if (path === '-') return fromStream('<stdin>', process.stdin, undefined, () => 0);
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    throw usageError(`${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (info.isDirectory()) throw usageError(`${path}: is a directory, not a file`);
  const size = info.size;
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  let input: Readable = file;
  if (isGzipPath(path)) {
    // zlib is loaded only for a .gz file: a few milliseconds of every CLI start otherwise.
    const { createGunzip } = await import('node:zlib');
    const gunzip = createGunzip();
    file.on('error', (error) => gunzip.destroy(error));
    input = file.pipe(gunzip);
  }
  return fromStream(path, input, size, () => file.bytesRead);
}

function fromStream(name: string, input: Readable, size: number | undefined, bytesRead: () => number): LineSource {
  const chunks = decodedChunks(name, input);
  return { name, size, bytesRead, chunks, lines: splitLines(chunks) };
}

/** The stream as UTF-8 text; read and gunzip errors become usage errors naming the file. */
async function* decodedChunks(name: string, input: Readable): AsyncGenerator<string> {
  input.setEncoding('utf8');
  try {
    for await (const chunk of input as AsyncIterable<string>) yield chunk;
  } catch (error) {
    throw usageError(`${name}: cannot read the file (${readErrorReason(error)})`);
  }
}

/** Splits text chunks into lines (LF or CRLF); a final line without a newline is kept. */
async function* splitLines(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of chunks) {
    const text = rest === '' ? chunk : rest + chunk;
    let start = 0;
    let end = text.indexOf('\n', start);
    while (end !== -1) {
      yield text.charCodeAt(end - 1) === 13 && end > start ? text.slice(start, end - 1) : text.slice(start, end);
      start = end + 1;
      end = text.indexOf('\n', start);
    }
    rest = text.slice(start);
  }
  if (rest !== '') yield rest.endsWith('\r') ? rest.slice(0, -1) : rest;
}

function readErrorReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') return 'not valid gzip data';
  return code ?? (error as Error).message;
}

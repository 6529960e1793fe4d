/** The work behind `experiment export`: stream the body to a file or stdout, counting lines for progress. */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ApiClient } from '../support/api-client.js';
import { CliError, usageError } from '../support/cli-error.js';
import { EXIT } from '../../src/exit-codes.js';
import { formatCount, progress, progressDone } from '../support/output.js';
import type { ServerFlags } from '../support/server-options.js';

export interface ExportOptions extends ServerFlags {
  output?: string;
}

/** Streams the export; a file is written to `<file>.partial` and renamed once complete. */
export async function runExport(id: number, options: ExportOptions): Promise<void> {
  const client = new ApiClient(options);
  const { body } = await client.stream(ApiClient.experimentsPath(id, 'export'));
  const counter = lineCounter();
  const target = options.output;
  const partial = target === undefined ? undefined : `${target}.partial`;
  const sinks: Array<Transform | Writable> = [counter];
  if (target?.toLowerCase().endsWith('.gz')) sinks.push(createGzip());
  sinks.push(partial === undefined ? process.stdout : createWriteStream(partial));
  try {
    await pipeline(body, ...(sinks as [Transform, ...Writable[]]));
  } catch (error) {
    if (partial !== undefined) await rm(partial, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') return;
    if (partial !== undefined && code !== undefined && !code.startsWith('UND_ERR'))
      throw usageError(`-o ${target}: cannot write the file (${code})`);
    throw new CliError(`the export stream from ${client.baseUrl} broke off: ${(error as Error).message}`, EXIT.server);
  } finally {
    progressDone();
  }
  if (partial !== undefined && target !== undefined) {
    await rename(partial, target);
    process.stderr.write(`exported experiment ${id}: ${formatCount(counter.lines())} lines to ${target}\n`);
  }
}

/** A pass-through that counts newlines and reports progress on a terminal. */
function lineCounter(): Transform & { lines(): number } {
  let lines = 0;
  let last = Date.now();
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      const now = Date.now();
      if (now - last > 250) {
        last = now;
        progress(`exporting: ${formatCount(lines)} lines`);
      }
      callback(null, chunk);
    },
  });
  return Object.assign(transform, { lines: () => lines });
}

/**
 * All terminal output goes through here: the only module that uses chalk and
 * cli-table3. `--json` prints machine output; colour only on a terminal without
 * NO_COLOR.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';

/** Colour when stdout is a terminal and NO_COLOR is unset. */
export function useColour(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && (process.env.NO_COLOR ?? '') === '' && process.env.TERM !== 'dumb';
}

/** A chalk instance that honours useColour(). */
export function colours(stream: NodeJS.WriteStream = process.stdout): ChalkInstance {
  return new Chalk({ level: useColour(stream) ? 1 : 0 });
}

/** Prints a value as one JSON document. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints one JSON value on one line (JSON Lines). */
export function printJsonLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Prints a line of text. */
export function printLine(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** Renders rows as a table with a header. */
export function renderTable(head: string[], rows: Array<Array<string | number>>): string {
  const table = new Table({ head, style: { head: useColour() ? ['cyan'] : [], border: [] } });
  for (const row of rows) table.push(row.map((cell) => String(cell)));
  return table.toString();
}

/** Writes a progress note on stderr, only when stderr is a terminal. */
export function progress(text: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${text}\u001b[K`);
}

/** Ends a progress line. */
export function progressDone(): void {
  if (process.stderr.isTTY) process.stderr.write('\r\u001b[K');
}

/** A buffered line writer for output of millions of lines: one write per ~64 KB, honouring back-pressure. */
export interface LineWriter {
  line(text: string): Promise<void> | undefined;
  end(): Promise<void>;
}

/** Creates a LineWriter on stdout; a closed pipe (`| head`) ends the process quietly. */
export function createLineWriter(stream: NodeJS.WritableStream = process.stdout, limit = 1 << 16): LineWriter {
  let buffer = '';
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  const flush = (): Promise<void> | undefined => {
    const ok = stream.write(buffer);
    buffer = '';
    return ok ? undefined : new Promise((resolve) => stream.once('drain', () => resolve()));
  };
  return {
    line(text) {
      buffer += `${text}\n`;
      return buffer.length >= limit ? flush() : undefined;
    },
    async end() {
      if (buffer !== '') await flush();
    },
  };
}

/** A number with thousands separators (en-US), `digits` decimals at most. */
export function formatCount(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** A warning on stderr (yellow on a terminal), never on stdout so --json stays clean. */
export function warn(text: string): void {
  process.stderr.write(`${colours(process.stderr).yellow(`recsvc: warning: ${text}`)}\n`);
}

/**
 * All terminal output goes through here: the only module that uses chalk and
 * cli-table3. `--json` prints machine output; box tables, colours and bar glyphs
 * only on a terminal without NO_COLOR (README, Command reference), plain aligned
 * text everywhere else so pipes, logs and `grep` see no drawing characters.
 */
import type { ChalkInstance } from 'chalk';
import type TableConstructor from 'cli-table3';
import { createRequire } from 'node:module';
import { groupThousands } from '../../src/number-format.js';

/** Rich output (box tables, colours, glyphs) when the stream is a terminal, NO_COLOR is unset and TERM is not dumb. */
export function useRichOutput(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && (process.env.NO_COLOR ?? '') === '' && process.env.TERM !== 'dumb';
}

let chalk: typeof import('chalk') | undefined;

/**
 * Loads chalk when stdout or stderr gets colours (the program's start awaits it, runCli):
 * off a terminal — CI, pipes, scripts — chalk is never loaded, which was a sixth of an
 * offline `gates check`'s start (issue 27).
 */
export async function prepareColours(): Promise<void> {
  if (chalk === undefined && (useRichOutput(process.stdout) || useRichOutput(process.stderr))) chalk = await import('chalk');
}

/**
 * Text as it is, for any chain of styles (`plain.bold.red('x')` is 'x'): what chalk at level 0
 * writes, without loading chalk.
 */
const plain: ChalkInstance = new Proxy((...text: unknown[]) => text.join(' '), {
  get: (_target, key) => (key === 'level' ? 0 : plain),
}) as unknown as ChalkInstance;

/** A chalk instance that honours useRichOutput() (plain text off a terminal). */
export function colours(stream: NodeJS.WriteStream = process.stdout): ChalkInstance {
  return chalk !== undefined && useRichOutput(stream) ? new chalk.Chalk({ level: 1 }) : plain;
}

/** Prints a value as one JSON document. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints a line of text. */
export function printLine(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** Renders rows as a table with a header: boxed on a rich terminal, else plain columns. */
export function renderTable(head: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((row) => row.map((cell) => String(cell)));
  if (!useRichOutput()) return renderPlainTable(head, cells);
  // cli-table3 (and the string-width modules it requires) only when a terminal shows a table:
  // piped output and commands that print no table start without it.
  const Table = createRequire(import.meta.url)('cli-table3') as typeof TableConstructor;
  const table = new Table({ head, style: { head: ['cyan'], border: [] } });
  for (const row of cells) table.push(row);
  return table.toString();
}

/** Columns padded to their widest cell and separated by two spaces, no trailing blanks. */
function renderPlainTable(head: string[], rows: string[][]): string {
  const lines = [head, ...rows];
  const widths = head.map((_, column) => Math.max(...lines.map((line) => displayWidth(line[column] ?? ''))));
  return lines
    .map((line) =>
      widths
        .map((width, column) => pad(line[column] ?? '', width))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

// The colour escapes chalk writes (none off a terminal; stripped so widths stay right if any slip in).
// eslint-disable-next-line no-control-regex -- terminal escape sequences start with ESC
const ANSI = /\u001b\[[0-9;]*m/g;

/** Terminal columns of a cell: colour escapes take none, each code point one. */
export function displayWidth(text: string): number {
  return Array.from(text.replace(ANSI, '')).length;
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/** Writes a progress note on stderr, only when stderr is a terminal. */
export function progress(text: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${text}\u001b[K`);
}

/** A progress note of `line()` on a terminal, at most every 100 ms however often it is called. */
export function throttledProgress(line: () => string): () => void {
  let last = 0;
  return () => {
    const now = Date.now();
    if (now - last < 100) return;
    last = now;
    progress(line());
  };
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
  return groupThousands(value, digits);
}

/** A warning on stderr (yellow on a terminal), never on stdout so --json stays clean. */
export function warn(text: string): void {
  process.stderr.write(`${colours(process.stderr).yellow(`recsvc: warning: ${text}`)}\n`);
}

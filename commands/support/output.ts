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

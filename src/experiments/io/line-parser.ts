/**
 * Feeding streamed text to the offline-data parsers. A parser takes one line at a time
 * synchronously; these helpers drive it from an async iterable of lines (simple) or of
 * text chunks (fastest: no promise per line, which matters for a million rows).
 */

/** A push parser: `line` for each line in order (line numbers are counted by the parser), then `finish`. */
export interface LineParser<T> {
  line(text: string): void;
  finish(): T;
}

/** Runs a parser over an async iterable of lines (e.g. node:readline's interface). */
export async function parseLines<T>(lines: AsyncIterable<string>, parser: LineParser<T>): Promise<T> {
  for await (const line of lines) parser.line(line);
  return parser.finish();
}

/**
 * Runs a parser over decoded text chunks (e.g. a read stream with encoding 'utf8'),
 * splitting on '\n' (a '\r' before it is the parser's business); the last line needs no newline.
 */
export async function parseChunks<T>(chunks: AsyncIterable<string>, parser: LineParser<T>): Promise<T> {
  let rest = '';
  for await (const chunk of chunks) {
    let start = 0;
    let end = chunk.indexOf('\n');
    if (end >= 0 && rest !== '') {
      parser.line(rest + chunk.slice(0, end));
      rest = '';
      start = end + 1;
      end = chunk.indexOf('\n', start);
    }
    while (end >= 0) {
      parser.line(chunk.slice(start, end));
      start = end + 1;
      end = chunk.indexOf('\n', start);
    }
    rest += chunk.slice(start);
  }
  if (rest !== '') parser.line(rest);
  return parser.finish();
}

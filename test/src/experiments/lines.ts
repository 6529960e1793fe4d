/** Test helpers: feed strings to the streaming parsers as the CLI's line reader would. */

/** Yields each string as one line, asynchronously. */
export async function* linesOf(lines: Iterable<string>): AsyncGenerator<string> {
  for (const line of lines) yield line;
}

/** Splits a text into lines like readline does (no trailing newline characters). */
export function textLines(text: string): AsyncGenerator<string> {
  return linesOf(text.split('\n'));
}

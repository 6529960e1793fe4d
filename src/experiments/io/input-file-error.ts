/**
 * A malformed input file (an export or a CSV): where and what, formatted the way
 * compilers do (`file:line:column: what is wrong`) so editors can jump to it.
 */
import { ValidationError } from '../../errors.js';

/** A malformed line of an input file; the CLI maps it to exit code 2. */
export class InputFileError extends ValidationError {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly detail: string;

  constructor(file: string, line: number, column: number, detail: string) {
    super(`${file}:${line}:${column}: ${detail}`, 'file');
    this.file = file;
    this.line = line;
    this.column = column;
    this.detail = detail;
  }
}

/**
 * The per-user CSV of offline analysis (decisions.md, Offline data), parsed as a stream
 * straight into per-variant accumulators: no user is kept in memory.
 */
import { COUNT_KEYS } from '../metrics.js';
import { DECIMAL_COUNT_KEYS, describeBadCount, findImpossibleCounts, parseCount, parseNonNegativeDecimal } from './count-fields.js';
import { DuplicateUserCheck, type DuplicateCheckMode } from './duplicate-users.js';
import { InputFileError } from './input-file-error.js';
import { splitQuotedCsvLine, userCsvHeaderKind, USER_CSV_HEADER } from './user-csv-header.js';
import { parseLines, type LineParser } from './line-parser.js';
import { VariantAccumulator } from '../stats/variant-accumulator.js';

export { USER_CSV_HEADER, splitQuotedCsvLine, userCsvHeaderKind } from './user-csv-header.js';
const FIELD_COUNT = 2 + COUNT_KEYS.length;
const IS_DECIMAL = COUNT_KEYS.map((key) => DECIMAL_COUNT_KEYS.has(key));

export interface UserCsvOptions {
  /** The variants the data may contain (from `--allocations`); others are an error. Omitted: any. */
  variants?: readonly string[];
  /** How duplicate user ids are found (duplicate-users.ts); default `sorted`. */
  duplicateCheck?: DuplicateCheckMode;
}

/** What a CSV yields: accumulators per variant (in the given order, else first appearance). */
export interface ParsedUsers {
  accumulators: Map<string, VariantAccumulator>;
  users: number;
  /** The first line whose user id was out of order (sorted duplicate check): re-check the file with createUserIdScan. */
  unsortedFrom?: number;
}

/** 1-based character column where field `index` starts (for unquoted lines). */
function columnOf(fields: readonly string[], index: number): number {
  let column = 1;
  for (let i = 0; i < index; i++) column += (fields[i] as string).length + 1;
  return column;
}

const COMMA = 44;
const ZERO = 48;
const NINE = 57;

/**
 * The fast path for a well-formed unquoted row: scans the line once, writing the eight
 * counts into `row`, and returns the variant; undefined when anything is off (the slow
 * path then finds and reports the problem).
 */
function scanRow(line: string, row: Float64Array): string | undefined {
  const idEnd = line.indexOf(',');
  if (idEnd <= 0) return undefined;
  const variantEnd = line.indexOf(',', idEnd + 1);
  if (variantEnd < 0) return undefined;
  let p = variantEnd + 1;
  for (let k = 0; k < COUNT_KEYS.length; k++) {
    const start = p;
    let value = 0;
    for (; p < line.length; p++) {
      const code = line.charCodeAt(p);
      if (code === COMMA) break;
      if (code < ZERO || code > NINE) return undefined;
      value = value * 10 + (code - ZERO);
    }
    if (p === start || p - start > 15) return undefined;
    if ((p === line.length) !== (k === COUNT_KEYS.length - 1)) return undefined;
    row[k] = value;
    p++;
  }
  return line.slice(idEnd + 1, variantEnd);
}

class UserCsvParser implements LineParser<ParsedUsers> {
  readonly accumulators: Map<string, VariantAccumulator>;
  private readonly allowed: ReadonlySet<string> | undefined;
  private readonly row = new Float64Array(COUNT_KEYS.length);
  private sawHeader = false;
  /** The file has R's leading row-names column: dropped from every row. */
  private rowNames = false;
  private lineNumber = 0;
  private users = 0;
  private readonly duplicates: DuplicateUserCheck;

  constructor(
    private readonly file: string,
    private readonly options: UserCsvOptions,
  ) {
    this.duplicates = new DuplicateUserCheck(file, options.duplicateCheck);
    this.allowed = options.variants === undefined ? undefined : new Set(options.variants);
    this.accumulators = new Map((options.variants ?? []).map((name) => [name, new VariantAccumulator(name)]));
  }

  line(text: string): void {
    const lineNumber = ++this.lineNumber;
    const line = text.charCodeAt(text.length - 1) === 13 ? text.slice(0, -1) : text;
    if (line.length === 0 || line.trim() === '') return;
    if (!this.sawHeader) return this.header(line, lineNumber);
    const variant = line.includes('"') || this.rowNames ? undefined : scanRow(line, this.row);
    const accumulator = variant === undefined ? undefined : this.accumulators.get(variant);
    if (accumulator === undefined || findImpossibleCounts(this.row) !== undefined) return this.slowRow(line, lineNumber);
    this.duplicates.add(line.slice(0, line.indexOf(',')), lineNumber);
    accumulator.addRow(this.row);
    this.users++;
  }

  private header(line: string, lineNumber: number): void {
    const header = lineNumber === 1 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
    const kind = userCsvHeaderKind(header);
    if (kind === undefined) {
      throw new InputFileError(this.file, lineNumber, 1, `expected the header ${USER_CSV_HEADER}, got ${JSON.stringify(header)}`);
    }
    this.rowNames = kind === 'row-names';
    this.sawHeader = true;
  }

  /** Quoted fields, a first row of a new variant, or an error: field by field, with messages. */
  private slowRow(line: string, lineNumber: number): void {
    const all = line.includes('"') ? splitQuotedCsvLine(line) : line.split(',');
    const skipped = this.rowNames ? 1 : 0;
    const fields = all.slice(skipped);
    const fail = (index: number, message: string): InputFileError =>
      new InputFileError(this.file, lineNumber, index < 0 ? 1 : columnOf(all, index + skipped), message);
    if (fields.length !== FIELD_COUNT) throw fail(-1, `expected ${FIELD_COUNT} comma-separated fields, found ${fields.length}`);
    if ((fields[0] as string).length === 0) throw fail(0, 'user_id is empty');
    const variant = fields[1] as string;
    if (this.allowed !== undefined && !this.allowed.has(variant)) {
      throw fail(1, `unknown variant ${JSON.stringify(variant)} (expected one of: ${this.options.variants?.join(', ')})`);
    }
    if (variant.length === 0) throw fail(1, 'variant is empty');
    for (let k = 0; k < COUNT_KEYS.length; k++) {
      const text = fields[k + 2] as string;
      const value = IS_DECIMAL[k] ? parseNonNegativeDecimal(text) : parseCount(text);
      if (value < 0) throw fail(k + 2, describeBadCount(COUNT_KEYS[k] as string, text, IS_DECIMAL[k] as boolean));
      this.row[k] = value;
    }
    const issue = findImpossibleCounts(this.row);
    if (issue !== undefined) throw fail(2 + COUNT_KEYS.indexOf(issue.key), issue.message);
    this.duplicates.add(fields[0] as string, lineNumber);
    let accumulator = this.accumulators.get(variant);
    if (accumulator === undefined) {
      accumulator = new VariantAccumulator(variant);
      this.accumulators.set(variant, accumulator);
    }
    accumulator.addRow(this.row);
    this.users++;
  }

  finish(): ParsedUsers {
    if (!this.sawHeader) {
      throw new InputFileError(this.file, Math.max(this.lineNumber, 1), 1, `the file is empty; expected the header ${USER_CSV_HEADER}`);
    }
    const unsorted = this.duplicates.unsortedFrom;
    return { accumulators: this.accumulators, users: this.users, ...(unsorted === undefined ? {} : { unsortedFrom: unsorted }) };
  }
}

/**
 * A push parser of the per-user CSV (`user_id,variant,<8 counts>` after the exact header,
 * whose names may be quoted and follow R's unnamed row-names column, which is then ignored)
 * into accumulators; throws InputFileError (`file:line:column: ...`) on a wrong header,
 * wrong field count, empty user id, unknown variant, a count that is not a non-negative
 * whole number of at most 15 digits (session_seconds may have a fraction), or counts no user
 * can have (findImpossibleCounts), or a user id on two lines (duplicate-users.ts: in a sorted
 * file at once; an unsorted one is reported in `unsortedFrom` for a second pass). Blank lines
 * and CRLF are fine.
 */
export function createUserCsvParser(file: string, options: UserCsvOptions = {}): LineParser<ParsedUsers> {
  return new UserCsvParser(file, options);
}

/** Parses the per-user CSV from an async iterable of lines (see createUserCsvParser for the rules). */
export function parseUserCsv(lines: AsyncIterable<string>, file: string, options: UserCsvOptions = {}): Promise<ParsedUsers> {
  return parseLines(lines, createUserCsvParser(file, options));
}

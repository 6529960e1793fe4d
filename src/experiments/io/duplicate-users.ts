/**
 * Duplicate users in an offline file (an export or a CSV): the same user on two lines would be
 * counted twice, in its variant's sample size and in every sum, which shrinks every standard
 * error and can turn noise into significance. Checked in bounded memory:
 * - `sorted` (the default): exports list users by user id (the server pages them in that
 *   order), so a duplicate is the line right after its twin. Each id is compared with the
 *   previous one (JavaScript string order of the id's text, numbers by their decimal form): equal
 *   is a duplicate, naming both lines; lower means the file is not sorted, and the check stops
 *   and records where (`unsortedFrom`) so the caller can re-read the file in `table` mode.
 *   O(1) memory.
 * - `table`: every id's 64-bit hash (two independent 32-bit halves) and its line in an
 *   open-addressing table: 12 bytes a slot, at most half full (1,000,000 users: 2²¹ slots, 24 MB),
 *   never the ids themselves. Two distinct ids share a hash with probability about n²/2⁶⁵
 *   (3·10⁻⁸ for a million users); such a pair would be reported as a duplicate.
 */
import { InputFileError } from './input-file-error.js';
import { splitQuotedCsvLine, userCsvHeaderKind } from './user-csv-header.js';

export type DuplicateCheckMode = 'sorted' | 'table';

/** FNV-1a over UTF-16 code units with a given offset basis: one 32-bit half of the hash. */
function fnv1a(text: string, basis: number): number {
  let h = basis >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // A final avalanche (murmur3's fmix32), so nearby ids spread over the table.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

const MAX_LOAD = 0.5;

/** The id → first line table of `table` mode. */
class IdTable {
  private capacity = 1 << 12;
  private high = new Uint32Array(this.capacity);
  private low = new Uint32Array(this.capacity);
  private lines = new Uint32Array(this.capacity);
  private size = 0;

  /** Records `id` at `line`; returns the earlier line holding the same hash, if any. */
  add(id: string, line: number): number | undefined {
    const high = fnv1a(id, 0x811c9dc5);
    const low = fnv1a(id, 0x9e3779b9);
    const earlier = this.insert(high, low, line);
    if (earlier !== undefined) return earlier;
    if (++this.size > this.capacity * MAX_LOAD) this.grow();
    return undefined;
  }

  private insert(high: number, low: number, line: number): number | undefined {
    const mask = this.capacity - 1;
    for (let slot = (high ^ low) & mask; ; slot = (slot + 1) & mask) {
      const held = this.lines[slot] as number;
      if (held === 0) {
        this.high[slot] = high;
        this.low[slot] = low;
        this.lines[slot] = line;
        return undefined;
      }
      if (this.high[slot] === high && this.low[slot] === low) return held;
    }
  }

  private grow(): void {
    const [high, low, lines] = [this.high, this.low, this.lines];
    this.capacity *= 2;
    this.high = new Uint32Array(this.capacity);
    this.low = new Uint32Array(this.capacity);
    this.lines = new Uint32Array(this.capacity);
    for (let slot = 0; slot < lines.length; slot++) {
      if (lines[slot] !== 0) this.insert(high[slot] as number, low[slot] as number, lines[slot] as number);
    }
  }
}

/** The duplicate-user check of one file, fed each user line's id and line number in order. */
export class DuplicateUserCheck {
  private previousId: string | undefined;
  private previousLine = 0;
  private unsorted: number | undefined;
  private readonly table: IdTable | undefined;

  constructor(
    private readonly file: string,
    mode: DuplicateCheckMode = 'sorted',
  ) {
    this.table = mode === 'table' ? new IdTable() : undefined;
  }

  /** Checks one user line; throws InputFileError naming both lines on a duplicate. */
  add(id: string, line: number): void {
    if (this.table !== undefined) {
      const earlier = this.table.add(id, line);
      if (earlier !== undefined) throw duplicateError(this.file, id, earlier, line);
      return;
    }
    if (this.unsorted !== undefined) return;
    if (this.previousId !== undefined) {
      if (id === this.previousId) throw duplicateError(this.file, id, this.previousLine, line);
      if (id < this.previousId) {
        this.unsorted = line;
        return;
      }
    }
    this.previousId = id;
    this.previousLine = line;
  }

  /** The first line whose id was below the one before it (sorted mode): the file must be re-checked in table mode. */
  get unsortedFrom(): number | undefined {
    return this.unsorted;
  }
}

function duplicateError(file: string, id: string, first: number, second: number): InputFileError {
  return new InputFileError(
    file,
    second,
    1,
    `user_id ${JSON.stringify(id)} is also on line ${first}: each user must appear once (a user listed twice is counted twice)`,
  );
}

/** The text an id is compared and hashed by: a string as it is, a number in decimal. */
export function userIdText(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * The second pass over a file whose first pass found it unsorted: each user line's id into a
 * `table`-mode check (JSON Lines: lines with "type":"user"; CSV: the first field after the
 * header, the second after R's row names). Malformed lines were already reported by the first pass, so they are skipped here.
 */
export function createUserIdScan(file: string): { line(text: string): void; finish(): void } {
  const check = new DuplicateUserCheck(file, 'table');
  let lineNumber = 0;
  let format: 'jsonl' | 'csv' | undefined;
  let rowNames = false;
  return {
    line(text: string) {
      lineNumber++;
      const unix = text.endsWith('\r') ? text.slice(0, -1) : text;
      const trimmed = lineNumber === 1 && unix.charCodeAt(0) === 0xfeff ? unix.slice(1) : unix;
      if (trimmed.trim() === '') return;
      if (format === undefined) {
        format = trimmed.trimStart().startsWith('{') ? 'jsonl' : 'csv';
        if (format === 'csv') {
          rowNames = userCsvHeaderKind(trimmed) === 'row-names';
          return; // the header
        }
      }
      const id = format === 'jsonl' ? jsonUserId(trimmed) : rowNames ? splitQuotedCsvLine(trimmed)[1] : csvUserId(trimmed);
      if (id !== undefined) check.add(id, lineNumber);
    },
    finish() {},
  };
}

function jsonUserId(text: string): string | undefined {
  try {
    const record = JSON.parse(text) as { type?: unknown; user_id?: unknown };
    return record.type === 'user' ? userIdText(record.user_id) : undefined;
  } catch {
    return undefined;
  }
}

function csvUserId(text: string): string | undefined {
  if (!text.startsWith('"')) return userIdText(text.slice(0, Math.max(0, text.indexOf(','))));
  let id = '';
  for (let i = 1; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch !== '"') id += ch;
    else if (text[i + 1] === '"') {
      id += '"';
      i++;
    } else break;
  }
  return userIdText(id);
}

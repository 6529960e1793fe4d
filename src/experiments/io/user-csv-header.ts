/**
 * The per-user CSV's header and fields (decisions.md, Offline data): shared by the parser
 * (user-csv.ts) and the duplicate scan's second pass (duplicate-users.ts).
 */
import { COUNT_KEYS } from '../metrics.js';

export const USER_CSV_HEADER = ['user_id', 'variant', ...COUNT_KEYS].join(',');

/**
 * Whether a header names the columns, quoted or not, with or without a leading unnamed column
 * of row names (R's `write.csv` quotes every name and writes row names by default):
 * 'plain', 'row-names', or undefined when it is not the expected header.
 */
export function userCsvHeaderKind(header: string): 'plain' | 'row-names' | undefined {
  const names = splitQuotedCsvLine(header.trim());
  if (names.join(',') === USER_CSV_HEADER) return 'plain';
  if (names[0] === '' && names.slice(1).join(',') === USER_CSV_HEADER) return 'row-names';
  return undefined;
}

/** Splits a line with double-quoted fields (RFC 4180, quotes doubled inside); the slow path. */
export function splitQuotedCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      fields.push(field);
      field = '';
    } else field += ch;
  }
  fields.push(field);
  return fields;
}

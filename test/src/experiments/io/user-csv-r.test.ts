/**
 * The per-user CSV as R writes it: `write.csv(df, "users.csv")` quotes the header and every
 * text cell and adds an unnamed row-names column ("","user_id",… then "1","u1",…);
 * `row.names = FALSE` drops that column but keeps the quotes. Both were refused ("expected the
 * header"); both must give exactly what the plain file gives. The texts below follow R 4.x's
 * write.csv output format (utils::write.table with sep=",", dec=".", qmethod="double",
 * quote=TRUE, row.names=TRUE/FALSE; numbers unquoted), typed out by hand.
 */
import { describe, expect, it } from 'vitest';
import { createUserIdScan } from '../../../../src/experiments/io/duplicate-users.js';
import { InputFileError } from '../../../../src/experiments/io/input-file-error.js';
import { parseUserCsv, USER_CSV_HEADER } from '../../../../src/experiments/io/user-csv.js';
import { textLines } from '../lines.js';

const ROWS: Array<[string, string, number[]]> = [
  ['u1', 'control', [10, 1, 2, 3, 120, 1, 1, 0]],
  ['u "two"', 'treatment', [8, 2, 1, 2, 95.5, 0, 2, 1]],
  ['u3, jr', 'control', [5, 0, 0, 1, 30, 1, 0, 0]],
];
const quote = (text: string): string => `"${text.replace(/"/g, '""')}"`;

const plain = [USER_CSV_HEADER, ...ROWS.map(([id, v, counts]) => [quote(id), v, ...counts].join(','))].join('\n');
const rHeader = USER_CSV_HEADER.split(',').map(quote).join(',');
const rWithRowNames = [
  `"",${rHeader}`,
  ...ROWS.map(([id, v, counts], i) => [quote(String(i + 1)), quote(id), quote(v), ...counts].join(',')),
].join('\r\n');
const rWithoutRowNames = [rHeader, ...ROWS.map(([id, v, counts]) => [quote(id), quote(v), ...counts].join(','))].join('\r\n');

async function summary(text: string) {
  const parsed = await parseUserCsv(textLines(`${text}\n`), 'users.csv', { variants: ['control', 'treatment'] });
  return {
    users: parsed.users,
    moments: [...parsed.accumulators].map(([name, acc]) => [name, acc.moments('click_through_rate'), acc.moments('session_duration')]),
  };
}

describe("the per-user CSV as R's write.csv writes it", () => {
  it('reads row names and quoted headers and cells to the same accumulators as the plain file', async () => {
    const expected = await summary(plain);
    expect(expected.users).toBe(3);
    expect(await summary(rWithRowNames)).toEqual(expected);
    expect(await summary(rWithoutRowNames)).toEqual(expected);
  });

  it('reports a bad cell past the row names with its line, and finds a user twice by id, not by row name', async () => {
    const bad = `"",${rHeader}\n"1","u1","control",10,x,0,0,0,0,0,0\n`;
    const error = await parseUserCsv(textLines(bad), 'r.csv').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputFileError);
    expect((error as InputFileError).message).toMatch(/clicks must be a non-negative whole number \(got "x"\)/);
    expect((error as InputFileError).line).toBe(2);
    const twice = [
      `"",${rHeader}`,
      '"1","b","control",1,0,0,0,0,0,0,0',
      '"2","a","control",1,0,0,0,0,0,0,0',
      '"3","b","control",1,0,0,0,0,0,0,0',
    ];
    const scan = createUserIdScan('r.csv');
    expect(() => twice.forEach((line) => scan.line(line))).toThrow(/user_id "b" is also on line 2/);
  });
});

/** The duplicate-user check (duplicate-users.ts): sorted mode, the switch to a second pass, and the hash table. */
import { describe, expect, it } from 'vitest';
import { DuplicateUserCheck, createUserIdScan } from '../../../../src/experiments/io/duplicate-users.js';

describe('sorted mode', () => {
  it('names both lines of adjacent twins, and records where an unsorted file goes out of order', () => {
    const check = new DuplicateUserCheck('f.csv');
    check.add('a', 2);
    check.add('b', 3);
    expect(() => check.add('b', 4)).toThrow('f.csv:4:1: user_id "b" is also on line 3');
    const other = new DuplicateUserCheck('f.csv');
    other.add('b', 2);
    other.add('a', 3);
    other.add('b', 4); // no longer checked here: the caller re-reads in table mode
    expect(other.unsortedFrom).toBe(3);
  });
});

describe('table mode', () => {
  it('finds a twin 200,000 ids later, with no false alarm among 200,000 distinct ids (the table grows 6 times)', () => {
    const check = new DuplicateUserCheck('f.jsonl', 'table');
    for (let i = 0; i < 200_000; i++) check.add(`user-${(i * 7919) % 200_003}`, i + 2);
    let error: unknown;
    try {
      check.add(`user-${(5 * 7919) % 200_003}`, 200_002);
    } catch (caught) {
      error = caught;
    }
    expect((error as Error).message).toBe(
      `f.jsonl:200002:1: user_id "user-${(5 * 7919) % 200_003}" is also on line 7: each user must appear once (a user listed twice is counted twice)`,
    );
  });

  it('the second-pass scan reads CSV first fields (quoted too, CRLF)', () => {
    const csv = createUserIdScan('u.csv');
    csv.line('user_id,variant');
    csv.line('"a,b",control');
    csv.line('c,control');
    expect(() => csv.line('"a,b",treatment\r')).toThrow('u.csv:4:1: user_id "a,b" is also on line 2');
  });

  it('the second-pass scan reads JSON Lines user lines only; a number id and its decimal string are the same user', () => {
    const scan = createUserIdScan('e.jsonl');
    scan.line('{"type":"experiment"}');
    scan.line('{"type":"user","user_id":7}');
    scan.line('{"type":"performance","variant":"7"}');
    expect(() => scan.line('{"type":"user","user_id":"7"}')).toThrow('e.jsonl:4:1: user_id "7" is also on line 2');
  });
});

/**
 * Issue 30, messy input files, through the built binary: duplicate users (sorted and unsorted
 * files, stdin), allocations that do not add up to 100 in an export, and files that cannot be
 * analysed (no users, every user in one variant) all exit 2 with one line naming the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { CSV_HEADER, csvText, jsonlText, makeUsers, writeData, type SyntheticUser } from '../support/make-data.js';

const dir = mkdtempSync(join(tmpdir(), 'recsvc-messy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const experiment = {
  id: 30,
  confidence_level: 0.95,
  minimum_sample_size: 100,
  variants: [
    { name: 'control', traffic_allocation: 50, is_control: true },
    { name: 'treatment', traffic_allocation: 50, is_control: false },
  ],
};
const CSV_FLAGS = ['--allocations', 'control=50,treatment=50', '--control', 'control'];
const bySortedId = (a: SyntheticUser, b: SyntheticUser) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0);
const users = makeUsers([
  { name: 'control', allocation: 50, users: 300, ctr: 0.08, satisfaction: 0.7 },
  { name: 'treatment', allocation: 50, users: 300, ctr: 0.1, satisfaction: 0.7 },
]);
const sorted = [...users].sort(bySortedId);
/** The export's order (by user id) with user 41 written twice, on adjacent lines. */
const sortedWithTwin = [...sorted.slice(0, 42), sorted[41] as SyntheticUser, ...sorted.slice(42)];
/** The generator's order (not sorted by id) with a user of the first lines written again near the end. */
const unsortedWithTwin = [...users.slice(0, 500), users[3] as SyntheticUser, ...users.slice(500)];

/** The single line of stderr (the CLI's one-line error). */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

describe('duplicate users', () => {
  it('a sorted export with a user on two adjacent lines: exit 2 naming both lines (1 experiment line + 42 users = line 43, twin on 44)', async () => {
    const file = writeData(join(dir, 'sorted-twin.jsonl'), jsonlText(experiment, sortedWithTwin));
    const result = await runCli(['experiment', 'analyze', '--file', file, '--json']);
    expect(result.code).toBe(2);
    const id = (sorted[41] as SyntheticUser).user_id;
    expect(oneLine(result.stderr)).toContain(`${file}:44:1: user_id "${id}" is also on line 43`);
  });

  it('an unsorted CSV with a user repeated far from its twin: found by the second pass, both lines named (header = line 1)', async () => {
    const file = writeData(join(dir, 'unsorted-twin.csv'), csvText(unsortedWithTwin));
    for (const command of [
      ['experiment', 'analyze'],
      ['gates', 'check'],
    ]) {
      const result = await runCli([...command, '--file', file, ...CSV_FLAGS, '--json']);
      expect(result.code).toBe(2);
      expect(oneLine(result.stderr)).toContain(`${file}:502:1: user_id "${(users[3] as SyntheticUser).user_id}" is also on line 5`);
    }
  });

  it('the same duplicate on stdin (read once: the table from the first line)', async () => {
    const result = await runCli(['experiment', 'analyze', '--file', '-', ...CSV_FLAGS, '--json'], { input: csvText(unsortedWithTwin) });
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toContain('-:502:1: user_id "control-3" is also on line 5');
  });

  it('the same files without the twins are analysed (exit 0), sorted or not', async () => {
    const a = writeData(join(dir, 'sorted.jsonl'), jsonlText(experiment, sorted));
    const b = writeData(join(dir, 'unsorted.csv'), csvText(users));
    expect((await runCli(['experiment', 'analyze', '--file', a, '--json'])).code).toBe(0);
    expect((await runCli(['experiment', 'analyze', '--file', b, ...CSV_FLAGS, '--json'])).code).toBe(0);
  });
});

describe('allocations and unanalysable files', () => {
  it('an export whose allocations add up to 110 (60/50) is refused, naming the line', async () => {
    const bad = { ...experiment, variants: [{ ...experiment.variants[0], traffic_allocation: 60 }, experiment.variants[1]] };
    const file = writeData(join(dir, 'sixty-fifty.jsonl'), jsonlText(bad, sorted));
    const result = await runCli(['gates', 'check', '--file', file, '--json']);
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toMatch(/sixty-fifty\.jsonl:1:\d+: traffic allocations must add up to 100 \(they add up to 110/);
  });

  it('a CSV with only its header, and an export with only its experiment line: exit 2, no users', async () => {
    const csv = writeData(join(dir, 'header.csv'), `${CSV_HEADER}\n`);
    const jsonl = writeData(join(dir, 'experiment-only.jsonl'), jsonlText(experiment, []));
    for (const args of [
      ['experiment', 'analyze', '--file', csv, ...CSV_FLAGS],
      ['gates', 'check', '--file', jsonl],
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(oneLine(result.stderr)).toMatch(/: no user rows, nothing to analyse/);
    }
  });

  it('every user in one variant: exit 2 naming it', async () => {
    const file = writeData(join(dir, 'one-variant.csv'), csvText(users.filter((u) => u.variant === 'treatment')));
    const result = await runCli(['experiment', 'analyze', '--file', file, ...CSV_FLAGS]);
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toContain(`${file}: all 300 users are in "treatment" and the control "control" has none`);
  });
});

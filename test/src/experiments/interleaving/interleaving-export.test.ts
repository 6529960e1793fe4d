/** The interleaving lines of an export: written as the analysis reads them, parsed back, and refused when they cannot be right. */
import { describe, expect, it } from 'vitest';
import { createJsonlExportParser, experimentLine, parseLines } from '../../../../src/experiments/io/export-format.js';
import { interleavingLine } from '../../../../src/experiments/interleaving/interleaving-export.js';
import { interleavingResult } from '../../../../src/experiments/interleaving/interleaving-result.js';
import { InputFileError } from '../../../../src/experiments/io/input-file-error.js';

const design = {
  id: 3,
  name: 'fresh vs default',
  type: 'interleaving',
  analysis_method: 'sequential',
  confidence_level: 0.95,
  minimum_sample_size: 2,
  variants: [
    { name: 'default', traffic_allocation: 50, is_control: true },
    { name: 'fresh', traffic_allocation: 50, is_control: false },
  ],
};
const users = [
  { impressionsA: 4, impressionsB: 4, a: 2, b: 0 },
  { impressionsA: 5, impressionsB: 3, a: 1, b: 1 },
  { impressionsA: 4, impressionsB: 4, a: 0, b: 3 },
  { impressionsA: 4, impressionsB: 4, a: 3, b: 1 },
];

function parse(lines: string[]) {
  return parseLines(
    (async function* () {
      yield* lines;
    })(),
    createJsonlExportParser('x.jsonl'),
  );
}

describe('interleaving lines', () => {
  it('name the teams by variant (the ranker under test first) and parse back to the same analysis', async () => {
    const lines = users.map((u, i) => interleavingLine(design, `u${i}`, u));
    expect(JSON.parse(lines[0] as string)).toEqual({
      type: 'interleaving',
      user_id: 'u0',
      team_impressions: { fresh: 4, default: 4 },
      credited_clicks: { fresh: 2, default: 0 },
    });
    const parsed = await parse([experimentLine(design), ...lines]);
    expect(parsed.experiment.type).toBe('interleaving');
    expect(parsed.interleaving).toEqual(users);
    expect(interleavingResult({ ...parsed.experiment, id: 3 }, parsed.interleaving ?? [])).toEqual(interleavingResult(design, users));
  });

  it('give an interleaving export without any an empty list, and an A/B export none', async () => {
    expect((await parse([experimentLine(design)])).interleaving).toEqual([]);
    expect((await parse([experimentLine({ ...design, type: 'ab' })])).interleaving).toBeUndefined();
  });

  it.each([
    ['a second line for a user', (l: string) => [l, l], 'a second interleaving line for user "u0"'],
    ['a negative count', (l: string) => [l.replace('"fresh":2', '"fresh":-2')], 'credited_clicks.fresh must be a whole number'],
    ['an unknown variant', (l: string) => [l.replace('"default":4', '"other":4')], 'team_impressions: unknown variant "other"'],
    ['no user id', (l: string) => [l.replace('"user_id":"u0",', '')], 'missing field "user_id"'],
  ])('refuse %s, naming the line', async (_what, damage, message) => {
    const lines = [experimentLine(design), ...damage(interleavingLine(design, 'u0', users[0] as (typeof users)[0]))];
    const error = await parse(lines).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputFileError);
    expect(String((error as Error).message)).toContain(message);
    expect(String((error as Error).message)).toMatch(/^x\.jsonl:[23]:/);
  });

  it('are refused in the export of an A/B experiment', async () => {
    const error = await parse([
      experimentLine({ ...design, type: 'ab' }),
      interleavingLine(design, 'u0', users[0] as (typeof users)[0]),
    ]).catch((e: unknown) => e);
    expect(String((error as Error).message)).toContain('not of type interleaving');
  });
});

import { describe, expect, it } from 'vitest';
import { analyzeExperiment } from '../../../../src/experiments/stats/analysis.js';
import {
  createUserCsvParser,
  parseChunks,
  parseJsonlExport,
  parseUserCsv,
  toJsonlLines,
  USER_CSV_HEADER,
  type UserRecord,
} from '../../../../src/experiments/io/export-format.js';
import { InputFileError } from '../../../../src/experiments/io/input-file-error.js';
import { COUNT_KEYS } from '../../../../src/experiments/metrics.js';
import { createRandom as seededRandom } from '../../../../src/random.js';
import { linesOf, textLines } from '../lines.js';
import { accumulate, countsOf, readFixture, type ReferenceDataset } from '../stats/reference-data.js';

const dataset = readFixture<ReferenceDataset>('reference-three-variant.json');
const users: UserRecord[] = dataset.users.map((row) => ({ user_id: row[0], variant: row[1], ...countsOf(row, dataset.columns) }));
const experiment = { id: 7, name: 'three', status: 'ACTIVE', traffic_percentage: 100, ...dataset.design };
const perfRecords = dataset.design.variants.map((v, i) => ({
  variant: v.name,
  requests: 1000 * (i + 1),
  errors: i,
  latency_ms_p95: 120.5 + i,
  cache_hits: 10,
  cache_lookups: 20,
}));

/** A valid user line of variant control, with some counts replaced. */
function userJson(overrides: Record<string, number>): string {
  const counts = {
    impressions: 10,
    clicks: 1,
    interactions: 0,
    sessions: 2,
    session_seconds: 30,
    bounces: 1,
    feedback_positive: 0,
    feedback_negative: 0,
  };
  return JSON.stringify({ type: 'user', user_id: 'u', variant: 'control', ...counts, ...overrides });
}

/** A valid performance line of variant control, with some figures replaced. */
function perfJson(overrides: Record<string, unknown>): string {
  return JSON.stringify({
    type: 'performance',
    variant: 'control',
    requests: 10,
    errors: 1,
    latency_ms_p95: 100,
    cache_hits: 1,
    cache_lookups: 2,
    ...overrides,
  });
}

async function rejection(promise: Promise<unknown>): Promise<InputFileError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputFileError);
  return error as InputFileError;
}

describe('JSON Lines export', () => {
  it('round-trips: serialised lines parse back to the same analysis as the raw users', async () => {
    const lines = [...toJsonlLines(experiment, users, perfRecords)];
    expect(JSON.parse(lines[0] as string)).toMatchObject({ type: 'experiment', id: 7 });
    expect(Object.keys(JSON.parse(lines[1] as string))).toEqual(['type', 'user_id', 'variant', ...COUNT_KEYS]);
    expect(JSON.parse(lines.at(-1) as string)).toEqual({ type: 'performance', ...perfRecords.at(-1) });
    const parsed = await parseJsonlExport(linesOf([...lines, '', '']), 'x.jsonl');
    expect(parsed.users).toBe(users.length);
    expect(parsed.performance).toEqual(perfRecords);
    expect(parsed.experiment.id).toBe(7);
    expect(parsed.experiment.type).toBeUndefined();
    expect(analyzeExperiment(parsed.experiment, parsed.accumulators)).toEqual(analyzeExperiment(dataset.design, accumulate(dataset)));
  });

  it.each([
    ['bad JSON', ['{"type":"experiment"', ''], 1, /x\.jsonl:1:\d+: invalid JSON/],
    ['experiment not first', ['{"type":"user"}'], 1, /first line must be the \{"type":"experiment"/],
    ['unknown variant', [null, '{"type":"user","user_id":"u","variant":"ghost"}'], 2, /unknown variant "ghost"/],
    ['missing count', [null, '{"type":"user","user_id":"u","variant":"control","impressions":1}'], 2, /missing field "clicks"/],
    ['negative count', [null, '{"type":"user","user_id":"u","variant":"control","impressions":-1}'], 2, /impressions must not be negative/],
    [
      'fractional count',
      [null, '{"type":"user","user_id":"u","variant":"control","impressions":1.5}'],
      2,
      /impressions must be a non-negative whole number/,
    ],
    ['unknown type', [null, '{"type":"click"}'], 2, /unknown line type "click"/],
    [
      'clicks without an impression',
      [null, userJson({ impressions: 0, clicks: 2 })],
      2,
      /clicks \(2\) exceed impressions \(0\): a click needs an impression/,
    ],
    ['clicks > impressions', [null, userJson({}), userJson({ impressions: 3, clicks: 4 })], 3, /clicks \(4\) exceed impressions \(3\)/],
    ['bounces > sessions', [null, userJson({ sessions: 1, bounces: 2 })], 2, /bounces \(2\) exceed sessions \(1\)/],
    [
      'session time without a session',
      [null, userJson({ sessions: 0, bounces: 0, session_seconds: 12.5 })],
      2,
      /session_seconds is 12\.5 with 0 sessions/,
    ],
    [
      'a count too large to add up exactly',
      [null, userJson({ impressions: 1e300 })],
      2,
      /impressions is too large \(got 1e\+300; at most 999999999999999\)/,
    ],
    ['errors > requests', [null, perfJson({ requests: 3, errors: 4 })], 2, /errors \(4\) exceed requests \(3\)/],
    ['cache_hits > cache_lookups', [null, perfJson({ cache_hits: 5, cache_lookups: 2 })], 2, /cache_hits \(5\) exceed cache_lookups \(2\)/],
    ['a second performance line for a variant', [null, perfJson({}), perfJson({})], 3, /a second performance line for variant "control"/],
    [
      'a latency histogram that is not an object',
      [null, perfJson({ latency_histogram: [1, 2] })],
      2,
      /latency_histogram must be an object/,
    ],
    ['a latency bucket that does not exist', [null, perfJson({ latency_histogram: { 999: 1 } })], 2, /"999" is not a bucket index/],
    ['a negative latency count', [null, perfJson({ latency_histogram: { 3: -1 } })], 2, /count of bucket 3 must be a whole number/],
    [
      'more latencies than requests',
      [null, perfJson({ requests: 3, errors: 0, latency_histogram: { 1: 2, 2: 2 } })],
      2,
      /latency_histogram counts 4 requests, more than requests \(3\)/,
    ],
  ])('rejects %s with file:line:column', async (_name, lines, line, pattern) => {
    const head = JSON.stringify({ type: 'experiment', ...experiment });
    const input = lines.map((l) => l ?? head);
    const error = await rejection(parseJsonlExport(linesOf(input), 'x.jsonl'));
    expect(error.line).toBe(line);
    expect(error.message).toMatch(pattern);
    expect(error.message.startsWith(`x.jsonl:${line}:${error.column}: `)).toBe(true);
  });

  it("keeps a performance line's latency histogram through a write and a parse", async () => {
    const histogram = { '0': 3, '5': 10, '12': 1 };
    const line = perfJson({ requests: 20, errors: 0, latency_histogram: histogram });
    const parsed = await parseJsonlExport(linesOf([JSON.stringify({ type: 'experiment', ...experiment }), line]), 'x.jsonl');
    expect(parsed.performance[0]?.latency_histogram).toEqual(histogram);
    const again = [...toJsonlLines(experiment, [], parsed.performance)];
    expect(JSON.parse(again.at(-1) as string).latency_histogram).toEqual(histogram);
  });

  it('points the column at the offending field', async () => {
    const bad = '{"type":"user","user_id":"u","variant":"control","impressions":"7"}';
    const error = await rejection(parseJsonlExport(linesOf([JSON.stringify({ type: 'experiment', ...experiment }), bad]), 'f'));
    expect(error.column).toBe(bad.indexOf('"impressions"') + 1);
    const impossible = userJson({ sessions: 1, bounces: 3 });
    const second = await rejection(parseJsonlExport(linesOf([JSON.stringify({ type: 'experiment', ...experiment }), impossible]), 'f'));
    expect(second.column).toBe(impossible.indexOf('"bounces"') + 1);
  });
});

describe('per-user CSV', () => {
  const csvOf = (rows: UserRecord[]): string[] => [
    USER_CSV_HEADER,
    ...rows.map((u) => [u.user_id, u.variant, ...COUNT_KEYS.map((k) => u[k])].join(',')),
  ];

  it('gives the same accumulators as the JSON Lines path', async () => {
    const parsed = await parseUserCsv(linesOf([...csvOf(users), '']), 'u.csv', { variants: ['control', 'fresh', 'semantic'] });
    expect(parsed.users).toBe(users.length);
    expect(analyzeExperiment(dataset.design, parsed.accumulators)).toEqual(analyzeExperiment(dataset.design, accumulate(dataset)));
  });

  it('accepts CRLF, a BOM, quoted fields and fractional session seconds; variants in first-seen order', async () => {
    const text = `\ufeff${USER_CSV_HEADER}\r\n"a,1",b,1,0,0,1,12.5,0,0,0\r\nz,a,1,1,0,1,3,1,1,0\r\n`;
    const parsed = await parseUserCsv(textLines(text), 'u.csv');
    expect([...parsed.accumulators.keys()]).toEqual(['b', 'a']);
    expect(parsed.accumulators.get('b')?.moments('session_duration').sumX).toBe(12.5);
  });

  it.each([
    ['wrong header', 'user_id,variant,clicks\n', 1, 1, /expected the header user_id,variant,impressions/],
    ['wrong field count', `${USER_CSV_HEADER}\nu1,control,1,2\n`, 2, 1, /expected 10 comma-separated fields, found 4/],
    [
      'non-integer count',
      `${USER_CSV_HEADER}\nu1,control,1,x,0,0,0,0,0,0\n`,
      2,
      14,
      /clicks must be a non-negative whole number \(got "x"\)/,
    ],
    ['negative count', `${USER_CSV_HEADER}\nu1,control,-1,0,0,0,0,0,0,0\n`, 2, 12, /impressions must not be negative/],
    [
      'unknown variant',
      `${USER_CSV_HEADER}\nu1,ghost,1,0,0,0,0,0,0,0\n`,
      2,
      4,
      /unknown variant "ghost" \(expected one of: control, treatment\)/,
    ],
    [
      'clicks without an impression',
      `${USER_CSV_HEADER}\nu1,control,0,2,0,0,0,0,0,0\n`,
      2,
      14,
      /clicks \(2\) exceed impressions \(0\): a click needs an impression/,
    ],
    [
      'clicks > impressions after a good row',
      `${USER_CSV_HEADER}\nu1,control,5,1,0,1,3,0,0,0\nu2,control,3,4,0,1,3,0,0,0\n`,
      3,
      14,
      /clicks \(4\) exceed impressions \(3\)/,
    ],
    ['bounces > sessions', `${USER_CSV_HEADER}\nu1,treatment,1,0,0,1,10,2,0,0\n`, 2, 25, /bounces \(2\) exceed sessions \(1\)/],
    [
      'session time without a session',
      `${USER_CSV_HEADER}\nu1,control,1,0,0,0,0.5,0,0,0\n`,
      2,
      20,
      /session_seconds is 0\.5 with 0 sessions/,
    ],
    [
      'a session time too large to add up',
      `${USER_CSV_HEADER}\nu1,control,1,0,0,1,${'9'.repeat(400)}.5,0,0,0\n`,
      2,
      20,
      /session_seconds is too large/,
    ],
    [
      'a count of 16 digits',
      `${USER_CSV_HEADER}\nu1,control,1234567890123456,0,0,0,0,0,0,0\n`,
      2,
      12,
      /impressions is too large \(got "1234567890123456"; at most 999999999999999\)/,
    ],
    ['empty file', '', 1, 1, /the file is empty/],
  ])('rejects %s', async (_name, text, line, column, pattern) => {
    const error = await rejection(parseUserCsv(textLines(text), 'u.csv', { variants: ['control', 'treatment'] }));
    expect([error.line, error.column]).toEqual([line, column]);
    expect(error.message).toMatch(pattern);
    expect(error.message.startsWith(`u.csv:${line}:${column}: `)).toBe(true);
  });

  // How fast is a benchmark figure, not a test: bench/cli/in-process-1m.js.
  it('streams a million rows from chunked input', async () => {
    const random = seededRandom(1);
    const block = Array.from({ length: 1000 }, (_, i) => {
      const impressions = Math.floor(random() * 30);
      const clicks = Math.floor(impressions * random() * 0.2);
      return `user${i},${i % 2 === 0 ? 'control' : 'treatment'},${impressions},${clicks},1,2,${Math.floor(random() * 900)},${i % 2},1,0\n`;
    }).join('');
    async function* chunks(): AsyncGenerator<string> {
      yield `${USER_CSV_HEADER}\n`;
      for (let i = 0; i < 1000; i++) yield block;
    }
    const parsed = await parseChunks(chunks(), createUserCsvParser('big.csv', { variants: ['control', 'treatment'] }));
    expect(parsed.users).toBe(1_000_000);
    expect(parsed.accumulators.get('control')?.users).toBe(500_000);
  });

  it('splits chunks into lines wherever the chunk boundaries fall', async () => {
    const text = `${USER_CSV_HEADER}\r\n${csvOf(users.slice(0, 50)).slice(1).join('\r\n')}`;
    const expected = await parseUserCsv(textLines(text), 'u.csv');
    for (const size of [1, 7, 64, 1000]) {
      async function* chunks(): AsyncGenerator<string> {
        for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
      }
      const parsed = await parseChunks(chunks(), createUserCsvParser('u.csv'));
      expect(parsed.users).toBe(50);
      expect(analyzeExperiment(dataset.design, parsed.accumulators)).toEqual(analyzeExperiment(dataset.design, expected.accumulators));
    }
  });
});

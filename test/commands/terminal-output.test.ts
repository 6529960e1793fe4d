/**
 * Tables and colours appear only on a terminal without NO_COLOR (README, Command
 * reference): piped output is plain aligned text with no drawing characters, a
 * pseudo-terminal gets the boxes, and NO_COLOR turns them off there too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { hasScript, terminal } from './support/terminal.js';

/** Box-drawing and block characters (U+2500–U+259F). */
const DRAWING = /[\u2500-\u259f]/;
const FIXTURE = 'test/fixtures/cli/experiment.json';

let server: ServerProcess;
let id: number;

beforeAll(async () => {
  server = await startServerProcess();
  const created = await runCli(['experiment', 'create', '--file', FIXTURE], { env: server.env });
  expect(created.code, created.stderr).toBe(0);
  id = Number(created.stdout.trim());
});
afterAll(async () => server?.stop());

describe('output through a pipe', () => {
  it.each([
    [['experiment', 'list'], /^\d+\s+recency boost\s+DRAFT\s/m],
    [['experiment', 'status', 'ID'], /^control\s+0\s+0\.0%\s+50%\s+[#.|]{20}$/m],
    [['token', 'list'], /^id\s+label\s+scopes\s+tier\s+user\s+expires$/m],
  ])('%j prints plain aligned text without box-drawing characters', async (args, expected) => {
    const argv = args.map((arg) => (arg === 'ID' ? String(id) : arg));
    if (argv[0] === 'token') argv.push('--db', server.dbPath);
    // Even with colour allowed: a pipe is not a terminal.
    const result = await runCli(argv, { env: { ...server.env, NO_COLOR: undefined } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(expected);
    expect(result.stdout).not.toMatch(DRAWING);
    expect(result.stdout).not.toContain('\u001b[');
  });
});

describe.skipIf(!hasScript)('output on a terminal', () => {
  it('draws a box table, in colour, when NO_COLOR is unset', async () => {
    const term = terminal(`${process.execPath} ${BIN} experiment list`, { ...server.env, NO_COLOR: undefined });
    expect(await term.exited).toBe(0);
    expect(term.output()).toMatch(/┌─+┬/);
    expect(term.output()).toMatch(new RegExp(`│ ${id}\\s+│ recency boost\\s+│ \\S*DRAFT`));
    expect(term.output()).toContain('\u001b[');
  });

  it('prints plain text on a terminal when NO_COLOR is set', async () => {
    const term = terminal(`${process.execPath} ${BIN} experiment status ${id}`, { ...server.env, NO_COLOR: '1' });
    expect(await term.exited).toBe(0);
    expect(term.output()).toMatch(/^control\s+0\s+0\.0%\s+50%\s+[#.|]{20}\r?$/m);
    expect(term.output()).not.toMatch(DRAWING);
  });
});

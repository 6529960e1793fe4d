/**
 * Interactive `experiment create` driven through a real pseudo-terminal: util-linux
 * `script` runs the binary with a TTY on stdin/stdout; we answer each prompt when it
 * appears, including wrong answers that the server's own validators must reject.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { BIN, runCli } from '../helpers/cli.js';
import { hasScript, terminal } from './support/terminal.js';

let server: ServerProcess;

beforeAll(async () => {
  if (hasScript) server = await startServerProcess();
});
afterAll(async () => server?.stop());

describe.skipIf(!hasScript)('experiment create in a terminal', () => {
  it('asks for each field, rejects wrong answers with the server rules, and creates the experiment', async () => {
    const term = terminal(`${process.execPath} ${BIN} experiment create`, server.env);
    await term.answer('Experiment name', 'typed in a tty\r');
    await term.answer('Description', 'made by the pty test\r');
    await term.answer('Traffic percentage', '\r');
    await term.answer('Minimum sample size', '\r');
    await term.answer('Confidence level', '\x7f\x7f\x7f\x7f1.5\r');
    await term.answer('confidence level must be strictly between 0 and 1', '\x7f\x7f\x7f0.9\r');
    await term.answer('Primary metric', '\r');
    for (const roleQuestion of ['Guardrail metrics', 'Gate rule', 'Analysis method']) await term.answer(roleQuestion, '\r');
    await term.answer('Variant 1 name', 'control\r');
    await term.answer('Traffic allocation of control', '\x7f\x7f120\r');
    await term.answer('traffic allocation must be greater than 0 and at most 100', '\x7f\x7f\x7f40\r');
    for (const key of ['author_preference', 'content_engagement', 'recency', 'semantic_similarity'])
      await term.answer(`control: weight ${key}`, '\r');
    await term.answer('Variant 2 name', 'control\r');
    await term.answer('is used twice', '\x7f\x7f\x7f\x7f\x7f\x7f\x7ftreatment\r');
    await term.answer('Traffic allocation of treatment (%; 60 left)', '\r');
    await term.answer('treatment: weight author_preference', '\x7f\x7f\x7f\x7f0.4\r');
    await term.answer('treatment: weight content_engagement', '\x7f\x7f\x7f\x7f0.3\r');
    await term.answer('treatment: weight recency', '\x7f\x7f\x7f\x7f0.2\r');
    await term.answer('treatment: weight semantic_similarity', '\r');
    await term.answer('Which variant is the control?', '\r');
    await term.answer('Create "typed in a tty" with control 40% (control), treatment 60%?', '\r');
    expect(await term.exited).toBe(0);
    // eslint-disable-next-line no-control-regex -- terminal escape sequences start with ESC
    const id = /\n(?:\u001b\[\?25h)?(\d+)\r?\n/.exec(term.output())?.[1];
    expect(id, term.output()).toBeDefined();
    const shown = await runCli(['experiment', 'list', '--json'], { env: server.env });
    const experiment = JSON.parse(shown.stdout).find((e: { id: number }) => e.id === Number(id));
    expect(experiment).toMatchObject({
      name: 'typed in a tty',
      description: 'made by the pty test',
      confidence_level: 0.9,
      traffic_percentage: 100,
      minimum_sample_size: 1000,
    });
    expect(
      experiment.variants.map((v: { name: string; traffic_allocation: number; is_control: boolean }) => [
        v.name,
        v.traffic_allocation,
        v.is_control,
      ]),
    ).toEqual([
      ['control', 40, true],
      ['treatment', 60, false],
    ]);
    expect(experiment.variants[1].algorithm_config.weights).toEqual({
      author_preference: 0.4,
      content_engagement: 0.3,
      recency: 0.2,
      semantic_similarity: 0.1,
    });
  });

  it('never prompts with --no-interactive, even in a terminal', async () => {
    const term = terminal(`${process.execPath} ${BIN} experiment create --no-interactive --name x`, server.env);
    expect(await term.exited).toBe(2);
    expect(term.output()).toMatch(/missing --variant/);
  });

  it('exits 130 on Ctrl-C at a prompt, with one line and no stack', async () => {
    const term = terminal(`${process.execPath} ${BIN} experiment create`, server.env);
    await term.answer('Experiment name', '\x03');
    expect(await term.exited).toBe(130);
    expect(term.output()).toContain('recsvc: cancelled');
    expect(term.output()).not.toMatch(/\n\s+at /);
  });

  it('fails fast with exit 3 before the first question when the server is down', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const term = terminal(`${process.execPath} ${BIN} experiment create`, { ...server.env, RECSVC_SERVER: `http://127.0.0.1:${port}` });
    const outcome = await term.exitOrPrompt('Experiment name').finally(() => term.close());
    expect(outcome).toBe(3);
    expect(term.output()).toMatch(new RegExp(`recsvc: cannot reach the server at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
    expect(term.output()).not.toContain('Experiment name');
  });

  it('fails fast with exit 3 before the first question when the token is refused', async () => {
    const term = terminal(`${process.execPath} ${BIN} experiment create`, { ...server.env, RECSVC_TOKEN: 'rsv_not-a-token' });
    const outcome = await term.exitOrPrompt('Experiment name').finally(() => term.close());
    expect(outcome).toBe(3);
    expect(term.output()).toMatch(/401 Authentication required.*--token or RECSVC_TOKEN/);
    expect(term.output()).not.toContain('Experiment name');
  });
});

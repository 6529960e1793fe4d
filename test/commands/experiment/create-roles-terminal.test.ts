/**
 * The interactive `experiment create`'s questions about the decision, typed in a real
 * pseudo-terminal (util-linux `script`, as interactive-create.test.ts): arrow keys pick the
 * primary metric, the gate rule and the method, the space bar toggles guardrails (none
 * pre-checked because of --guardrail none), and the server records what was picked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { BIN, runCli } from '../../helpers/cli.js';
import { hasScript, terminal } from '../support/terminal.js';

const DOWN = '\x1b[B';
const UP = '\x1b[A';
let server: ServerProcess;

beforeAll(async () => {
  if (hasScript) server = await startServerProcess();
});
afterAll(async () => server?.stop());

describe.skipIf(!hasScript)('experiment create in a terminal: primary metric, guardrails, gate rule, method', () => {
  it('records the metric, guardrails, rule and method picked with the keys', async () => {
    const term = terminal(`${process.execPath} ${BIN} experiment create --name "roles by terminal" --guardrail none`, server.env);
    for (const prompt of ['Experiment name', 'Description', 'Traffic percentage', 'Minimum sample size', 'Confidence level'])
      await term.answer(prompt, '\r');
    // click_through_rate, interaction_rate, session_duration, bounce_rate, ...: three down.
    await term.answer('Primary metric', `${DOWN}${DOWN}${DOWN}\r`);
    // Without bounce_rate: click_through_rate, interaction_rate, session_duration, ...; none checked.
    await term.answer('Guardrail metrics', ` ${DOWN}${DOWN} \r`);
    await term.answer('Gate rule', `${DOWN}\r`);
    // fixed, sequential; the cursor starts on the default, sequential.
    await term.answer('Analysis method', `${UP}\r`);
    await term.answer('Variant 1 name', 'control\r');
    await term.answer('Traffic allocation of control', '\r');
    for (const key of ['author_preference', 'content_engagement', 'recency', 'semantic_similarity'])
      await term.answer(`control: weight ${key}`, '\r');
    await term.answer('Variant 2 name', 'fresh\r');
    await term.answer('Traffic allocation of fresh', '\r');
    for (const key of ['author_preference', 'content_engagement', 'recency', 'semantic_similarity'])
      await term.answer(`fresh: weight ${key}`, '\r');
    await term.answer('Which variant is the control?', '\r');
    await term.answer('Create "roles by terminal" with control 50% (control), fresh 50%?', '\r');
    expect(await term.exited).toBe(0);
    // The summary before the last question names what was picked (the terminal wraps it at 80 columns).
    expect(term.output().replace(/\s+/g, ' ')).toContain(
      'decided by: primary bounce_rate, guardrails click_through_rate, session_duration, gate rule point, fixed analysis',
    );
    const listed = await runCli(['experiment', 'list', '--json'], { env: server.env });
    const experiment = JSON.parse(listed.stdout).find((e: { name: string }) => e.name === 'roles by terminal');
    expect(experiment).toMatchObject({
      primary_metric: 'bounce_rate',
      guardrail_metrics: ['click_through_rate', 'session_duration'],
      gate_rule: 'point',
      analysis_method: 'fixed',
    });
  });
});

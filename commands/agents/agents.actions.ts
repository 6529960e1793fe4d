/** The work behind `recsvc agents ...`, against the server's database file. */
import type { AgentRunOutcome, AgentStatus } from '../../server/platform/agents/agent-runner.js';
import { EXIT } from '../../src/exit-codes.js';
import { CliError } from '../support/cli-error.js';
import { printJson, printLine, renderTable } from '../support/output.js';
import { openAgentHost, type AgentHost } from './agent-host.js';

export interface AgentsRunOptions {
  db?: string;
  json?: boolean;
}

export interface AgentsListOptions {
  db?: string;
  json?: boolean;
}

/** Exit code of a run that failed: 1, "the check failed", as `gates check` uses it. */
const AGENT_FAILED = EXIT.gateFailed;

async function withAgents<T>(dbPath: string | undefined, work: (host: AgentHost) => Promise<T>): Promise<T> {
  const host = await openAgentHost(dbPath);
  try {
    return await work(host);
  } finally {
    await host.close();
  }
}

/** Lists the agents serve schedules. */
export async function runAgentsList(options: AgentsListOptions): Promise<void> {
  const agents = await withAgents(options.db, async ({ runner }) =>
    runner.names().map((name) => {
      const agent = runner.find(name)!;
      return { name, description: agent.description ?? '', interval_seconds: agent.intervalSeconds };
    }),
  );
  if (options.json) printJson(agents);
  else
    printLine(
      renderTable(
        ['agent', 'every', 'what it does'],
        agents.map((a) => [a.name, `${a.interval_seconds} s`, a.description]),
      ),
    );
}

/** Runs one agent once; exits 1 when it fails, 2 when no agent has that name. */
export async function runAgentsRun(name: string, options: AgentsRunOptions): Promise<void> {
  const { outcome, status } = await withAgents(options.db, async ({ runner }) => {
    if (runner.find(name) === undefined) {
      throw new CliError(`unknown agent "${name}": one of ${runner.names().join(', ')}`, EXIT.usage, { hint: 'see `recsvc agents list`' });
    }
    const outcome = await runner.runNow(name);
    return { outcome, status: runner.statuses().find((s) => s.name === name)! };
  });
  if (outcome.status === 'failed') process.exitCode = AGENT_FAILED;
  if (options.json) printJson(outcomeJson(outcome, status));
  else printLine(outcomeLine(outcome, status));
}

function outcomeJson(outcome: AgentRunOutcome, status: AgentStatus): object {
  return {
    name: outcome.name,
    outcome: outcome.status,
    duration_ms: outcome.durationMs,
    summary: outcome.report?.summary ?? null,
    details: outcome.report?.details ?? {},
    error: outcome.error ?? null,
    skip_reason: outcome.reason ?? null,
    agent: status,
  };
}

function outcomeLine(outcome: AgentRunOutcome, status: AgentStatus): string {
  const head = `${outcome.name}: ${outcome.status} in ${outcome.durationMs} ms`;
  const what =
    outcome.status === 'success'
      ? (outcome.report?.summary ?? 'done')
      : outcome.status === 'skipped'
        ? `not run here: ${outcome.reason ?? 'another instance is running it'}`
        : `error: ${outcome.error ?? 'unknown'}`;
  return `${head} — ${what}\nstatus: ${status.status}, last_execution ${status.last_execution ?? 'never'}`;
}

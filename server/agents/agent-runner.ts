/**
 * Background agents: named periodic jobs with their last run visible at
 * /api/v1/agents/status and counted in service_agent_executions. A run never
 * overlaps the previous one, and a failure is logged and counted, not fatal.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ServiceMetrics } from '../metrics/service-metrics.js';

export interface Agent {
  /** Unique name, also the `agent_type` metric label. */
  readonly name: string;
  /** Seconds between runs. */
  readonly intervalSeconds: number;
  run(): Promise<void> | void;
}

export interface AgentStatus {
  name: string;
  status: 'idle' | 'running' | 'error' | 'stopped';
  last_execution: string | null;
  last_error: string | null;
  executions: number;
}

export class AgentRunner {
  private readonly agents = new Map<
    string,
    { agent: Agent; status: AgentStatus; timer?: NodeJS.Timeout; running?: Promise<void> | undefined }
  >();

  constructor(
    private readonly metrics: ServiceMetrics,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Adds an agent (not yet scheduled). */
  register(agent: Agent): void {
    this.agents.set(agent.name, {
      agent,
      status: { name: agent.name, status: 'stopped', last_execution: null, last_error: null, executions: 0 },
    });
  }

  /** Schedules every agent. */
  start(): void {
    for (const entry of this.agents.values()) {
      entry.status.status = 'idle';
      entry.timer = setInterval(() => void this.runNow(entry.agent.name), entry.agent.intervalSeconds * 1000);
      entry.timer.unref();
    }
  }

  /** Runs one agent now (skipped if it is still running); resolves when it finishes. */
  async runNow(name: string): Promise<void> {
    const entry = this.agents.get(name);
    if (!entry) throw new Error(`unknown agent ${name}`);
    if (entry.running) return entry.running;
    entry.running = this.execute(entry);
    try {
      await entry.running;
    } finally {
      entry.running = undefined;
    }
  }

  /** Stops scheduling and waits for runs in flight. */
  async stop(): Promise<void> {
    for (const entry of this.agents.values()) {
      clearInterval(entry.timer);
      entry.status.status = 'stopped';
    }
    await Promise.all([...this.agents.values()].map((entry) => entry.running ?? Promise.resolve()));
  }

  /** The status record of every agent. */
  statuses(): AgentStatus[] {
    return [...this.agents.values()].map((entry) => ({ ...entry.status }));
  }

  private async execute(entry: { agent: Agent; status: AgentStatus }): Promise<void> {
    const previous = entry.status.status;
    entry.status.status = 'running';
    try {
      await entry.agent.run();
      entry.status.last_error = null;
      entry.status.status = previous === 'stopped' ? 'stopped' : 'idle';
      this.metrics.agentExecutions.inc({ agent_type: entry.agent.name, status: 'success' });
    } catch (error) {
      entry.status.status = 'error';
      entry.status.last_error = (error as Error).message;
      this.metrics.agentExecutions.inc({ agent_type: entry.agent.name, status: 'error' });
      this.log.error({ err: error, agent: entry.agent.name }, 'agent run failed');
    } finally {
      entry.status.executions += 1;
      entry.status.last_execution = new Date().toISOString();
    }
  }
}

/** `GET /api/v1/agents/status`: the background agents and their last runs. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AgentRunner } from './agent-runner.js';

const Timestamp = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

const AgentStatusSchema = Type.Object({
  name: Type.String(),
  status: Type.Union([Type.Literal('idle'), Type.Literal('running'), Type.Literal('failed')], {
    description: '`failed` until a run succeeds (the runner retries with backoff); a skipped run leaves it unchanged',
  }),
  last_execution: Type.Union([Type.String({ format: 'date-time', description: 'When the last run ended' }), Type.Null()]),
  last_success: Timestamp,
  last_error: Type.Union([Type.String(), Type.Null()], { description: 'The error of the last run, when it failed' }),
  last_error_at: Timestamp,
  last_summary: Type.Union([Type.String(), Type.Null()], { description: 'What the last successful run did' }),
  last_duration_ms: Type.Union([Type.Number(), Type.Null()]),
  executions: Type.Integer(),
  consecutive_failures: Type.Integer(),
  skips: Type.Integer({
    description: 'Runs skipped because another instance was running this cluster agent, or had run it within the interval',
  }),
  last_skipped_at: Type.Union([Type.String({ format: 'date-time', description: 'When the last skipped run was due' }), Type.Null()]),
  last_skip_reason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why it was skipped (the lock another instance held, or who ran it within the interval and when)',
  }),
  interval_seconds: Type.Number(),
  next_run_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Null when the agents are not scheduled' }),
});

export const agentRoutes: FastifyPluginAsyncTypebox<{ runner: AgentRunner }> = async (app, { runner }) => {
  app.get(
    '/api/v1/agents/status',
    {
      config: { access: 'public' },
      schema: {
        tags: ['operations'],
        summary: 'Background agents and their last execution',
        operationId: 'getAgentStatus',
        response: { 200: Type.Object({ agents: Type.Array(AgentStatusSchema) }) },
      },
    },
    async () => ({ agents: runner.statuses() }),
  );
};

/** `GET /api/v1/agents/status`: the background agents and their last runs. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AgentRunner } from './agent-runner.js';

const AgentStatusSchema = Type.Object({
  name: Type.String(),
  status: Type.String({ description: '`idle`, `running`, `error` or `stopped`' }),
  last_execution: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  executions: Type.Integer(),
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

/**
 * `/api/v1/analytics/experiments`: the life cycle, status, metrics, analysis, gates and
 * export of experiments. Every operation needs the `admin` scope (ADMIN below; the
 * access plugin checks it from the headers, so an anonymous caller gets 401, not 400).
 */
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AllocationChangeSchema, AllocationDiffRequestSchema, AllocationDiffSchema } from '../../src/experiments/allocation-diff.schema.js';
import { ExperimentAnalysisSchema } from '../../src/experiments/experiment-analysis.schema.js';
import { ExperimentCreateSchema } from '../../src/experiments/experiment.schema.js';
import { ExperimentGatesSchema } from '../../src/experiments/gates/experiment-gates.schema.js';
import { InterleavingAnalysisSchema } from '../../src/experiments/interleaving/interleaving-analysis.schema.js';
import { GATE_RULES } from '../../src/experiments/gates/gates.js';
import { ExperimentMetricsSchema } from '../../src/experiments/experiment-metrics.schema.js';
import { ExperimentSchema, ExperimentStatusSchema } from '../../src/experiments/experiment-response.schema.js';
import { METRIC_NAMES } from '../../src/experiments/metrics.js';
import { ANALYSIS_METHODS } from '../../src/experiments/stats/sequential.js';
import { EXPERIMENT_STATUSES, type ExperimentAction } from '../../src/experiments/state-machine.js';
import { Envelope, StringEnum, errorResponses } from '../../src/schemas/common.schema.js';
import { envelope } from '../platform/http/envelope.js';
import { keptQuery, setLinkHeader } from '../platform/http/paging.js';
import type { ExperimentResultsService } from './experiment-results.service.js';
import type { ExperimentService } from './experiment.service.js';

export interface ExperimentRoutesOptions {
  experiments: ExperimentService;
  results: ExperimentResultsService;
}

const BASE = '/api/v1/analytics/experiments';
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'Experiment id' }) });
const tags = ['experiments'];
const ADMIN = { access: { scope: 'admin' } } as const;

/** The most experiments one list page holds (and its default): the list is paged by id with a Link header. */
export const MAX_EXPERIMENTS_PAGE = 100;

const ExperimentListQuery = Type.Object({
  status: Type.Optional(StringEnum(EXPERIMENT_STATUSES)),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_EXPERIMENTS_PAGE, default: MAX_EXPERIMENTS_PAGE, description: `1..${MAX_EXPERIMENTS_PAGE}` }),
  ),
  min_id: Type.Optional(Type.Integer({ minimum: 0, description: 'Only experiments with a larger id (the rel="next" page)' })),
});

export const experimentRoutes: FastifyPluginAsyncTypebox<ExperimentRoutesOptions> = async (app, { experiments, results }) => {
  app.post(
    BASE,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Create an experiment (DRAFT)',
        operationId: 'createExperiment',
        body: ExperimentCreateSchema,
        response: { 201: Envelope(ExperimentSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(envelope(request, await experiments.create(request.body))),
  );

  app.get(
    BASE,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'List experiments, oldest first, optionally by status; paged by id (min_id, limit) with a Link header',
        operationId: 'listExperiments',
        querystring: ExperimentListQuery,
        response: { 200: Envelope(Type.Array(ExperimentSchema)), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { status, limit = MAX_EXPERIMENTS_PAGE, min_id } = request.query;
      const list = await experiments.list(status, { limit, ...(min_id !== undefined ? { afterId: min_id } : {}) });
      const last = list.at(-1);
      if (last !== undefined && list.length === limit) {
        setLinkHeader(reply, request, [{ rel: 'next', query: { ...keptQuery(request, ['min_id']), min_id: last.id } }]);
      }
      return envelope(request, list);
    },
  );

  app.get(
    `${BASE}/:id`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Read an experiment',
        operationId: 'getExperiment',
        params: IdParams,
        response: { 200: Envelope(ExperimentSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request, await experiments.get(request.params.id)),
  );

  app.patch(
    `${BASE}/:id`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: "Change the variants' allocations (DRAFT, ACTIVE or PAUSED)",
        description:
          'Every variant by name with its new allocation (sum 100; the bucket ranges keep the variant order). 409 when the experiment is COMPLETED, ' +
          'or when already-assigned users sit in buckets that would change variant, unless force is true (recorded assignments never change).',
        operationId: 'changeExperimentAllocations',
        params: IdParams,
        body: AllocationChangeSchema,
        response: { 200: Envelope(ExperimentSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => envelope(request, await experiments.changeAllocations(request.params.id, request.body)),
  );

  app.post(
    `${BASE}/:id/allocation-diff`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Preview an allocation change (read-only): bucket ranges changing variant and assigned users who would move',
        operationId: 'diffExperimentAllocations',
        params: IdParams,
        body: AllocationDiffRequestSchema,
        response: { 200: Envelope(AllocationDiffSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request, await experiments.allocationDiff(request.params.id, request.body)),
  );

  for (const action of ['start', 'pause', 'stop'] as const satisfies readonly ExperimentAction[]) {
    app.post(
      `${BASE}/:id/${action}`,
      {
        config: ADMIN,
        schema: {
          tags,
          summary: `${action[0]?.toUpperCase()}${action.slice(1)} an experiment`,
          description:
            'DRAFT -> ACTIVE (start) <-> PAUSED (pause, start) -> COMPLETED (stop); any other move is 409 naming the current state.',
          operationId: `${action}Experiment`,
          params: IdParams,
          response: { 200: Envelope(ExperimentSchema), ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request) => envelope(request, await experiments.transition(request.params.id, action)),
    );
  }

  app.get(
    `${BASE}/:id/status`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Users assigned per variant, shares and sample ratio mismatch',
        operationId: 'getExperimentStatus',
        params: IdParams,
        response: { 200: Envelope(ExperimentStatusSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request, await experiments.status(request.params.id)),
  );

  app.get(
    `${BASE}/:id/metrics`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Live engagement, algorithm and performance metrics per variant',
        operationId: 'getExperimentMetrics',
        params: IdParams,
        response: { 200: Envelope(ExperimentMetricsSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request, await results.metrics(await experiments.get(request.params.id))),
  );

  app.get(
    `${BASE}/:id/analysis`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary:
          "Statistical analysis (delta method, Holm, SRM); ?metric= picks the primary metric, ?method= overrides the experiment's analysis method (fixed | sequential) for this read",
        operationId: 'getExperimentAnalysis',
        params: IdParams,
        querystring: Type.Object({
          metric: Type.Optional(StringEnum(METRIC_NAMES)),
          method: Type.Optional(StringEnum(ANALYSIS_METHODS)),
          by_instance: Type.Optional(
            Type.Boolean({ description: "true: add by_instance (users, SRM and metrics per instance of the users' canonical ids)" }),
          ),
        }),
        response: {
          200: Envelope(Type.Union([ExperimentAnalysisSchema, InterleavingAnalysisSchema])),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const experiment = await experiments.get(request.params.id);
      const { metric, method, by_instance: byInstance } = request.query;
      // An interleaving experiment is analysed by preference share (metric does not apply; method does).
      if (experiment.type === 'interleaving') return envelope(request, await experiments.interleavingAnalysis(experiment, method));
      return envelope(request, await results.analysis(experiment, metric, method, { byInstance: byInstance === true }));
    },
  );

  app.get(
    `${BASE}/:id/gates`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Performance gates per variant: value, interval, threshold, pass / fail / inconclusive',
        operationId: 'getExperimentGates',
        params: IdParams,
        querystring: Type.Object({
          rule: Type.Optional(
            StringEnum(GATE_RULES, {
              description: "bounds (default): the whole interval must clear the threshold; point: the spec's rule on the value",
            }),
          ),
        }),
        response: { 200: Envelope(ExperimentGatesSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request, await results.gates(await experiments.get(request.params.id), request.query.rule)),
  );

  app.get(
    `${BASE}/:id/export`,
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Export as JSON Lines: the experiment, one line per enrolled user, one performance line per variant',
        operationId: 'exportExperiment',
        params: IdParams,
        produces: ['application/x-ndjson'],
        response: {
          200: {
            description: 'JSON Lines (application/x-ndjson), streamed',
            content: { 'application/x-ndjson': { schema: Type.Unsafe<Readable>({ type: 'string' }) } },
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const experiment = await experiments.get(request.params.id);
      reply.type('application/x-ndjson; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="experiment-${experiment.id}.jsonl"`);
      return reply.send(Readable.from(results.exportLines(experiment)));
    },
  );
};

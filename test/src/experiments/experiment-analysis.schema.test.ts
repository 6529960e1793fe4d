/**
 * The analysis response schema as the server uses it: serialised by fastify (the JSON must
 * be exactly analyzeExperiment's) and published in the OpenAPI 3.0 document, which must
 * validate with swagger-parser.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openapiPlugin } from '../../../server/platform/plugins/openapi.js';
import { analyzeExperiment } from '../../../src/experiments/stats/analysis.js';
import { ExperimentAnalysisSchema } from '../../../src/experiments/experiment-analysis.schema.js';
import { accumulate, readFixture, type ReferenceDataset } from './stats/reference-data.js';

const dataset = readFixture<ReferenceDataset>('reference-three-variant.json');
const underpowered = readFixture<ReferenceDataset>('reference-srm.json');
const analyses = {
  three: analyzeExperiment(dataset.design, accumulate(dataset)),
  underpowered: analyzeExperiment(underpowered.design, accumulate(underpowered)),
};

type Json = Record<string, any>;

describe('ExperimentAnalysisSchema', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify();
    await app.register(openapiPlugin);
    app.get<{ Params: { name: 'three' | 'underpowered' } }>(
      '/analysis/:name',
      { schema: { operationId: 'getAnalysis', response: { 200: ExperimentAnalysisSchema } } },
      async (request) => analyses[request.params.name],
    );
    await app.ready();
  });
  afterAll(() => app.close());

  it('serialises to exactly the JSON of the analysis, adjusted intervals and nulls included', async () => {
    for (const name of ['three', 'underpowered'] as const) {
      const response = await app.inject({ method: 'GET', url: `/analysis/${name}` });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(JSON.parse(JSON.stringify(analyses[name])));
    }
    const [first] = (await app.inject({ method: 'GET', url: '/analysis/three' })).json().comparisons;
    expect(Object.keys(first)).toEqual(expect.arrayContaining(['adjusted_ci_low', 'adjusted_ci_high']));
  });

  it('publishes an OpenAPI 3.0 document that swagger-parser accepts', async () => {
    const document = structuredClone(app.swagger()) as Json;
    await expect(SwaggerParser.validate(document as never)).resolves.toBeDefined();
  });

  it('describes intervals as arrays of two numbers, nullable the OpenAPI 3.0 way', async () => {
    // Dereferenced, so the check holds whether the document inlines the schema or uses components.
    const document = (await SwaggerParser.dereference(structuredClone(app.swagger()) as never)) as Json;
    const schema = document.paths['/analysis/{name}'].get.responses['200'].content['application/json'].schema;
    const record = schema.properties.statistical_significance.additionalProperties.properties;
    for (const interval of [record.confidence_interval, record.adjusted_confidence_interval]) {
      expect(interval).toMatchObject({ type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2, nullable: true });
    }
    expect(schema.properties.confidence_intervals.additionalProperties).toMatchObject({
      type: 'array',
      items: { type: 'number' },
      minItems: 2,
      maxItems: 2,
    });
    expect(schema.properties.comparisons.items.properties.adjusted_ci_low).toEqual({ type: 'number', nullable: true });
    expect(JSON.stringify(schema)).not.toMatch(/"type":"null"|additionalItems/);
  });
});

import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRateLimitedPath } from '../../../src/rate-limit/policy.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

interface Response {
  description?: string;
  headers?: Record<string, { $ref?: string }>;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, Response>;
}
interface Document {
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, unknown>; headers?: Record<string, unknown> };
}

const PAGED_LISTS = [
  'GET /api/v1/posts',
  'GET /api/v1/posts/trending',
  'GET /api/v1/recommendations',
  'GET /api/v1/interactions',
  'GET /api/v1/analytics/experiments',
  'GET /api/v1/timelines/home',
  'GET /api/v1/timelines/public',
  'GET /api/v1/timelines/tag/{hashtag}',
];
const COMMON_HEADERS = ['X-Request-ID', 'X-Process-Time', 'X-Service-Version', 'X-API-Version'];
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

let t: TestApp;
let document: Document;
let operations: Array<{ name: string; path: string; method: string; operation: Operation }>;

async function fetchDocument(app: TestApp['app']): Promise<Document> {
  const response = await app.inject({ method: 'GET', url: '/docs/json' });
  expect(response.statusCode).toBe(200);
  return JSON.parse(response.body) as Document;
}

beforeAll(async () => {
  t = await createTestApp();
  document = await fetchDocument(t.app);
  operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, path, method, operation })),
  );
});
afterAll(() => t.close());

const isPublic = (operation: Operation): boolean => Array.isArray(operation.security) && operation.security.length === 0;
/** Public routes that authenticate an OAuth client (not a user): a bad client is 401 invalid_client (RFC 6749 §5.2). */
const CLIENT_AUTHENTICATED = ['POST /api/v1/oauth/token', 'POST /api/v1/oauth/revoke'];
const headerNames = (response: Response | undefined): string[] => Object.keys(response?.headers ?? {});

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.0 document (swagger-parser)', async () => {
    // validate() dereferences in place: hand it a copy so the other checks see the $refs.
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('names every path parameter as linters require: no {*}, and each {name} in a path declared as a path parameter', () => {
    expect(Object.keys(document.paths).filter((path) => path.includes('{*}'))).toEqual([]);
    for (const { name, path, operation } of operations) {
      const declared = (operation.parameters as Array<{ in: string; name: string }> | undefined)
        ?.filter((p) => p.in === 'path')
        .map((p) => p.name)
        .sort();
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string).sort();
      expect(declared ?? [], name).toEqual(inPath);
      for (const parameter of inPath) expect(parameter, name).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
    }
    const proxied = document.paths['/api/v1/proxy/{path}']?.get?.parameters as Array<{ name: string; description?: string }>;
    expect(proxied.find((p) => p.name === 'path')?.description).toContain('slashes included');
  });

  it('covers the API', () => {
    expect(operations.length).toBeGreaterThan(20);
    expect(operations.map((o) => o.name)).toEqual(
      expect.arrayContaining([...PAGED_LISTS, 'GET /health', 'POST /api/v1/analytics/experiments']),
    );
  });

  it('names, summarises and tags every operation, with unique operation ids', () => {
    for (const { name, operation } of operations) {
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.summary, name).toBeTruthy();
      expect(operation.tags?.length, name).toBeGreaterThan(0);
    }
    const ids = operations.map((o) => o.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes every response (never fastify\'s "Default Response")', () => {
    for (const { name, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.description, `${name} ${status}`).toBeTruthy();
        expect(response.description, `${name} ${status}`).not.toBe('Default Response');
      }
    }
    expect(document.paths['/api/v1/posts']?.get?.responses['200']?.description).toBe('OK');
    expect(document.paths['/api/v1/posts']?.get?.responses['400']?.description).toContain('Invalid request');
  });

  it('gives the error statuses each route can really return, in the spec error body', () => {
    for (const { name, operation } of operations) {
      const statuses = Object.keys(operation.responses);
      expect(statuses, name).toEqual(expect.arrayContaining(['500', '503']));
      if (isPublic(operation)) {
        if (CLIENT_AUTHENTICATED.includes(name)) expect(statuses, name).toContain('401');
        else expect(statuses, name).not.toContain('401');
      } else expect(statuses, name).toEqual(expect.arrayContaining(['401', '403']));
      if (!isPublic(operation)) expect(headerNames(operation.responses['401']), name).toContain('WWW-Authenticate');
      if (operation.parameters?.length || operation.requestBody) expect(statuses, name).toContain('400');
      if (operation.requestBody) expect(statuses, name).toEqual(expect.arrayContaining(['413', '415']));
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        expect(operation.responses[status]?.content?.['application/json']?.schema, `${name} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        });
      }
    }
    expect(isPublic(document.paths['/api/v1/posts']!.get!)).toBe(true);
    expect(Object.keys(document.paths['/api/v1/recommendations']!.get!.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
  });

  it('documents 429, Retry-After and the rate-limit headers on every limited route, and only there', () => {
    const limited = operations.filter((o) => isRateLimitedPath(o.path));
    expect(limited.length).toBeGreaterThan(20);
    expect(operations.some((o) => o.path === '/api/v1/health')).toBe(true);
    for (const { name, path, operation } of operations) {
      // The success answer: 2xx, or 3xx for the OAuth redirects (authorize, its callback).
      const ok = Object.entries(operation.responses).find(([status]) => /^[23]/.test(status))?.[1];
      if (isRateLimitedPath(path)) {
        expect(headerNames(operation.responses['429']), name).toEqual(expect.arrayContaining(['Retry-After', ...RATE_LIMIT_HEADERS]));
        expect(headerNames(ok), name).toEqual(expect.arrayContaining(RATE_LIMIT_HEADERS));
      } else {
        expect(operation.responses['429'], name).toBeUndefined();
        expect(headerNames(ok), name).not.toContain('X-RateLimit-Limit');
      }
      expect(headerNames(operation.responses['503']), name).toContain('Retry-After');
    }
  });

  it('documents the common headers on every response, and Link on the paged lists only', () => {
    for (const { name, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(headerNames(response), `${name} ${status}`).toEqual(expect.arrayContaining(COMMON_HEADERS));
        for (const header of Object.values(response.headers ?? {})) expect(header.$ref).toMatch(/^#\/components\/headers\//);
      }
      const hasLink = headerNames(operation.responses['200']).includes('Link');
      expect(hasLink, name).toBe(PAGED_LISTS.includes(name));
    }
    expect(Object.keys(document.components.headers ?? {})).toEqual(
      expect.arrayContaining([...COMMON_HEADERS, ...RATE_LIMIT_HEADERS, 'Retry-After', 'Link']),
    );
  });

  it('declares the shared shapes once in components.schemas and refers to each of them', () => {
    const schemas = document.components.schemas ?? {};
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining(['Error', 'Meta', 'Status', 'Account', 'RecommendedPost', 'Interaction', 'Experiment', 'Variant']),
    );
    const text = JSON.stringify(document);
    for (const name of Object.keys(schemas)) expect(text, name).toContain(`"$ref":"#/components/schemas/${name}"`);
    expect(document.paths['/api/v1/posts/{id}']?.get?.responses['200']?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/Status',
    });
    // A titled shape left inline would be a second, drifting definition of it.
    const inlineTitles: string[] = [];
    JSON.stringify(document.paths, (key, value: unknown) => {
      if (key !== 'properties' && value && typeof value === 'object' && typeof (value as { title?: unknown }).title === 'string') {
        inlineTitles.push((value as { title: string }).title);
      }
      return value;
    });
    expect(inlineTitles).toEqual([]);
  });

  it('declares a relative server, or the configured public URL', async () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const withPublicUrl = await createTestApp({ publicUrl: 'https://recs.example.com/base' });
    try {
      const other = await fetchDocument(withPublicUrl.app);
      expect(other.servers).toEqual([expect.objectContaining({ url: 'https://recs.example.com/base' })]);
      // The public URL's path is a prefix in front of the routes, never stripped from them.
      expect(Object.keys(other.paths)).toEqual(Object.keys(document.paths));
    } finally {
      await withPublicUrl.close();
    }
  });
});

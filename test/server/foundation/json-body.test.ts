/**
 * The bounded JSON body parser (server/platform/plugins/json-body.ts) on a small fastify app with
 * the service's error handler: bodies nested deeper than MAX_BODY_DEPTH are a 400 naming
 * the path before validation or a handler sees them, and fastify's own protections of its
 * JSON parser (prototype poisoning, empty and malformed bodies) are kept.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH } from '../../../src/schemas/bounded-json.js';
import { errorHandlerPlugin } from '../../../server/platform/plugins/error-handler.js';
import { jsonBodyPlugin } from '../../../server/platform/plugins/json-body.js';
import { validatorCompiler } from '../../../server/platform/plugins/validator.js';
import { createTestApp } from '../../helpers/test-app.js';

/** A schema that Ajv validates by recursing once per level of the body. */
const Tree = { type: 'object', properties: { child: { $ref: '#' } } };

let app: FastifyInstance;
let handled = 0;

async function build(options: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const instance = Fastify(options);
  instance.setValidatorCompiler(validatorCompiler);
  await instance.register(errorHandlerPlugin);
  await instance.register(jsonBodyPlugin);
  // Routes live in a child context, as the features do in server/app.ts.
  await instance.register(async (feature) => {
    feature.post('/echo', async (request) => {
      handled++;
      return { body: request.body };
    });
    feature.post('/tree', { schema: { body: Tree } }, async () => {
      handled++;
      return { ok: true };
    });
  });
  await instance.ready();
  return instance;
}

afterEach(async () => {
  await app?.close();
  handled = 0;
});

function nestedObjects(depth: number, key = 'a'): string {
  return `{"${key}":`.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
}

async function post(url: string, payload: string, contentType = 'application/json') {
  return app.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload });
}

describe('json body parser: depth', () => {
  it(`accepts a body ${MAX_BODY_DEPTH} levels deep and refuses ${MAX_BODY_DEPTH + 1} with 400 naming the path`, async () => {
    app = await build();
    const ok = await post('/echo', nestedObjects(MAX_BODY_DEPTH));
    expect(ok.statusCode).toBe(200);
    const field = Array(MAX_BODY_DEPTH).fill('a').join('.');
    const tooDeep = await post('/echo', nestedObjects(MAX_BODY_DEPTH + 1));
    expect(tooDeep.statusCode).toBe(400);
    expect(tooDeep.json()).toMatchObject({
      error: 'Invalid request',
      field,
      message: `${field} is nested deeper than ${MAX_BODY_DEPTH} levels`,
      status_code: 400,
    });
    expect(handled).toBe(1);
  });

  it('refuses 100,000 levels before schema validation recurses into them (that was a 500)', async () => {
    app = await build();
    const depth = 100_000;
    const body = '{"child":'.repeat(depth) + '{}' + '}'.repeat(depth);
    const res = await post('/tree', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().field).toBe(Array(MAX_BODY_DEPTH).fill('child').join('.'));
    const arrays = await post('/echo', '['.repeat(depth) + ']'.repeat(depth), 'application/json; charset=utf-8');
    expect(arrays.statusCode).toBe(400);
    expect(arrays.json().field).toBe('[0]'.repeat(MAX_BODY_DEPTH));
    expect(handled).toBe(0);
  });

  it('leaves wide, shallow bodies alone', async () => {
    app = await build();
    const wide = JSON.stringify({ items: Array.from({ length: 50_000 }, (_, i) => ({ i })) });
    const res = await post('/echo', wide);
    expect(res.statusCode).toBe(200);
    expect(res.json().body.items).toHaveLength(50_000);
  });
});

describe("json body parser: fastify's protections kept", () => {
  it.each([
    ['__proto__', '{"a":1,"__proto__":{"admin":true}}'],
    ['escaped __proto__', '{"\\u005f_proto__":{"admin":true}}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"admin":true}}}'],
  ])('refuses a %s key with 400', async (_name, payload) => {
    app = await build();
    const res = await post('/echo', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Invalid request', status_code: 400 });
    expect(handled).toBe(0);
  });

  it("follows the app's onProtoPoisoning setting", async () => {
    app = await build({ onProtoPoisoning: 'remove' });
    const res = await post('/echo', '{"a":1,"__proto__":{"admin":true}}');
    expect(res.statusCode).toBe(200);
    expect(res.json().body).toEqual({ a: 1 });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it("keeps the app's body limit (413)", async () => {
    app = await build({ bodyLimit: 100 });
    const res = await post('/echo', JSON.stringify({ pad: 'x'.repeat(200) }));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'Payload too large', status_code: 413 });
    expect(handled).toBe(0);
  });

  it('refuses empty and malformed bodies as before', async () => {
    app = await build();
    const empty = await post('/echo', '');
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toBe('Body is empty but Content-Type is application/json');
    const malformed = await post('/echo', '{"a":');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe('Invalid request');
    expect(handled).toBe(0);
  });
});

describe('json body parser in the app (server/app.ts registers it)', () => {
  it('refuses a body nested deeper than MAX_BODY_DEPTH on routes with and without free-form fields', async () => {
    const t = await createTestApp();
    try {
      const deep = '['.repeat(MAX_BODY_DEPTH + 1) + ']'.repeat(MAX_BODY_DEPTH + 1);
      for (const url of [
        '/api/v1/analytics/experiments',
        '/api/v1/recommendations/seamless',
        '/api/v1/posts/batch',
        '/api/v1/interactions',
      ]) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { ...(await t.adminHeaders()), 'content-type': 'application/json' },
          payload: `{"name":${deep}}`,
        });
        expect(res.statusCode, url).toBe(400);
        expect(res.json(), url).toMatchObject({
          error: 'Invalid request',
          field: `name${'[0]'.repeat(MAX_BODY_DEPTH - 1)}`,
          request_id: res.headers['x-request-id'],
        });
      }
    } finally {
      await t.close();
    }
  });
});

/**
 * The `application/json` body parser: fastify's own (secure-json-parse, so `__proto__` and
 * `constructor.prototype` keys keep being refused as the app's options say), then a depth
 * check that walks the parsed value with an explicit stack. A body nested deeper than
 * MAX_BODY_DEPTH is a 400 naming the path before schema validation, a handler or a
 * serialiser can recurse into it: at a few thousand levels those overflowed the stack (500).
 * JSON.parse itself does not recurse in V8, so parsing first is safe at any depth.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ValidationError } from '../../../src/errors.js';
import { depthOnlyBounds, findJsonBoundsViolation, MAX_BODY_DEPTH } from '../../../src/schemas/bounded-json.js';

export interface JsonBodyOptions {
  /** Deepest nesting accepted; the body itself is level 1. */
  maxDepth?: number;
}

async function jsonBody(app: FastifyInstance, options: JsonBodyOptions): Promise<void> {
  const bounds = depthOnlyBounds(options.maxDepth ?? MAX_BODY_DEPTH);
  const parseJson = app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? 'error',
    app.initialConfig.onConstructorPoisoning ?? 'error',
  );
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    void parseJson(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      const violation = findJsonBoundsViolation(value, bounds);
      if (violation) return done(new ValidationError(violation.message, violation.path || undefined), undefined);
      return done(null, value);
    });
  });
}

/** Registers the bounded JSON body parser for the whole app (register it before the routes). */
export const jsonBodyPlugin = fp(jsonBody, { name: 'json-body' });

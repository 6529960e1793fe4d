/**
 * Request validation with two Ajv instances: query strings and path parameters
 * arrive as text, so they are coerced (`limit=20` is the integer 20); JSON bodies
 * are not, so `{"limit": "20"}` or `{"user_id": 5}` is a 400 naming the field
 * instead of being silently converted.
 */
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const shared: Options = { useDefaults: true, removeAdditional: false, allErrors: false, strict: false };
const coercing = addFormats(new Ajv({ ...shared, coerceTypes: 'array' }));
const strict = addFormats(new Ajv({ ...shared, coerceTypes: false }));

/** fastify `validatorCompiler`: strict for bodies, coercing for everything else. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema as object);

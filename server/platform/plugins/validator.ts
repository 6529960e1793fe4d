/**
 * Request validation with two Ajv instances: query strings and path parameters
 * arrive as text, so they are coerced (`limit=20` is the integer 20); JSON bodies
 * are not, so `{"limit": "20"}` or `{"user_id": 5}` is a 400 naming the field
 * instead of being silently converted.
 *
 * Ajv's coercion is lenient (`Number(text)`): `0x28`, `+40`, `" 40"`, `4e1` and
 * `40.0` would all become 40. Before coercing, every integer or number parameter is
 * checked against plain decimal notation, so those are a 400 naming the parameter.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const shared: Options = { useDefaults: true, removeAdditional: false, allErrors: false, strict: false };
const coercing = withInstantDateTimes(addFormats(new Ajv({ ...shared, coerceTypes: 'array' })));
const strict = withInstantDateTimes(addFormats(new Ajv({ ...shared, coerceTypes: false })));

/**
 * RFC 3339 `date-time` that is also an instant JavaScript can hold: ajv-formats accepts a
 * leap second (`23:59:60Z`), which `Date` cannot parse — it reached the post mapper as an
 * invalid date and became a 500. Every date-time field is checked here, once.
 */
function withInstantDateTimes(ajv: Ajv): Ajv {
  const rfc3339 = ajv.formats['date-time'] as { validate?: (text: string) => boolean } | undefined;
  const matchesRfc3339 = rfc3339?.validate;
  if (typeof matchesRfc3339 !== 'function') throw new Error('ajv-formats no longer defines date-time as { validate }');
  return ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => matchesRfc3339(text) && Number.isFinite(Date.parse(text)),
  });
}

/** Decimal integers as a person writes them: optional minus, digits, no spaces or signs. */
const INTEGER_TEXT = /^-?\d{1,15}$/;
/** Decimal numbers: an integer part and an optional fraction, nothing else. */
const NUMBER_TEXT = /^-?\d{1,15}(\.\d{1,15})?$/;

interface PropertySchema {
  type?: unknown;
}

/** Parameter names whose schema type is `integer` or `number`, with the text pattern each must match. */
function numericProperties(schema: object): Array<[string, 'integer' | 'number']> {
  const properties = (schema as { properties?: Record<string, PropertySchema> }).properties ?? {};
  const numeric: Array<[string, 'integer' | 'number']> = [];
  for (const [name, property] of Object.entries(properties)) {
    if (property.type === 'integer' || property.type === 'number') numeric.push([name, property.type]);
  }
  return numeric;
}

function notationError(name: string, type: 'integer' | 'number'): ErrorObject {
  return {
    instancePath: `/${name}`,
    schemaPath: `#/properties/${name}/type`,
    keyword: 'type',
    params: { type },
    message: `must be ${type === 'integer' ? 'an integer' : 'a number'} in plain decimal notation`,
  };
}

type CheckedValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Wraps a coercing validator with the strict notation check of its numeric parameters. */
function withStrictNumbers(schema: object, validate: ValidateFunction): ValidateFunction | CheckedValidator {
  const numeric = numericProperties(schema);
  if (numeric.length === 0) return validate;
  const checked: CheckedValidator = (data: unknown) => {
    if (data !== null && typeof data === 'object') {
      const record = data as Record<string, unknown>;
      for (const [name, type] of numeric) {
        const values = Array.isArray(record[name]) ? (record[name] as unknown[]) : [record[name]];
        for (const value of values) {
          if (typeof value === 'string' && !(type === 'integer' ? INTEGER_TEXT : NUMBER_TEXT).test(value)) {
            checked.errors = [notationError(name, type)];
            return false;
          }
        }
      }
    }
    const valid = validate(data);
    checked.errors = validate.errors ?? null;
    return valid;
  };
  return checked;
}

/** fastify `validatorCompiler`: strict for bodies, coercing (decimal text only) for everything else. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return strict.compile(schema as object);
  return withStrictNumbers(schema as object, coercing.compile(schema as object));
};

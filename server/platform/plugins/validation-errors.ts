/** Turns Ajv validation issues into the spec's 400 with the offending `field`. */
import { InvalidParameterError, ValidationError, type AppError } from '../../../src/errors.js';

export interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** `/variants/2/traffic_allocation` -> `variants[2].traffic_allocation`. */
export function pointerToField(pointer: string): string {
  return pointer
    .split('/')
    .filter((part) => part.length > 0)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

function join(base: string, child: string): string {
  return base ? `${base}.${child}` : child;
}

/** The most useful single error for a list of Ajv issues. */
export function validationToError(issues: ValidationIssue[], context?: string): AppError {
  const issue = issues[0];
  if (!issue) return new ValidationError('Request validation failed');
  const base = pointerToField(issue.instancePath);
  const where = context === 'querystring' ? 'query parameter' : context === 'params' ? 'path parameter' : 'field';
  switch (issue.keyword) {
    case 'required': {
      const field = join(base, String(issue.params.missingProperty));
      return new ValidationError(`Missing required ${where}: ${field}`, field);
    }
    case 'additionalProperties': {
      const field = join(base, String(issue.params.additionalProperty));
      return new ValidationError(`Unknown ${where}: ${field}`, field);
    }
    case 'enum': {
      const allowed = (issue.params.allowedValues as unknown[] | undefined)?.join(', ');
      return new InvalidParameterError(`${base || 'value'} must be one of: ${allowed}`, base);
    }
    case 'type': {
      const type = String(issue.params.type).replace(/,/g, ' or ');
      return new ValidationError(`${base || 'body'} must be ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`, base || undefined);
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return new ValidationError(`${base} ${issue.message ?? 'is out of range'}`, base || undefined);
    default:
      return new ValidationError(`${base || 'body'} ${issue.message ?? 'is invalid'}`, base || undefined);
  }
}

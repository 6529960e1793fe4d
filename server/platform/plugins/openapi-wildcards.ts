/**
 * fastify's catch-all `*` becomes a path parameter literally named `*` (`/api/v1/proxy/{*}`),
 * which is not a valid parameter name for OpenAPI linters and tells a reader nothing. Each
 * one is renamed `path` and described: the rest of the URL, slashes included.
 */
import type { OpenapiDocument } from './openapi-responses.js';

const WILDCARD = '{*}';
const NAME = 'path';

interface Parameter {
  in?: string;
  name?: string;
  description?: string;
}

/** Renames every `{*}` path segment and its parameter to `{path}`, keeping the paths' order. */
export function nameWildcardParameters(document: OpenapiDocument): void {
  if (document.paths === undefined) return;
  const renamed = Object.entries(document.paths).map(([path, item]): [string, Record<string, unknown>] => {
    if (!path.includes(WILDCARD)) return [path, item];
    for (const operation of Object.values(item)) {
      const parameters = (operation as { parameters?: Parameter[] } | undefined)?.parameters ?? [];
      for (const parameter of parameters) {
        if (parameter.in !== 'path' || parameter.name !== '*') continue;
        parameter.name = NAME;
        parameter.description ??=
          'The rest of the path, slashes included (`api/v1/statuses/1/favourite`): it is sent to the instance as `/{path}`';
      }
    }
    return [path.replace(WILDCARD, `{${NAME}}`), item];
  });
  document.paths = Object.fromEntries(renamed);
}

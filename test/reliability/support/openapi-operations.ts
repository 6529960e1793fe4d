/**
 * The operations of the served OpenAPI document (/docs/json), with `$ref`s
 * resolved, as the fuzzer and the access-control sweep walk them: method, path
 * template, parameters, JSON body schema, and whether the route is public.
 */

export type JsonSchema = Record<string, unknown>;

export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** OpenAPI path template, e.g. `/api/v1/posts/{id}`. */
  path: string;
  label: string;
  parameters: OperationParameter[];
  /** Schema of an `application/json` request body, when the operation takes one. */
  body: JsonSchema | undefined;
  /** True when the operation declares `security: []` (no token needed). */
  public: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Loads the document from a live server. */
export async function fetchOpenApi(baseUrl: string): Promise<JsonSchema> {
  const response = await fetch(`${baseUrl}/docs/json`);
  if (response.status !== 200) throw new Error(`/docs/json answered ${response.status}`);
  return (await response.json()) as JsonSchema;
}

/** Every operation of the document, in document order. */
export function listOperations(document: JsonSchema): Operation[] {
  const resolve = refResolver(document);
  const operations: Operation[] = [];
  const globalSecurity = document.security as unknown[] | undefined;
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const method of METHODS) {
      const op = resolve(item[method]) as Record<string, unknown> | undefined;
      if (!op) continue;
      const parameters = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])].map((raw) => {
        const p = resolve(raw) as Record<string, unknown>;
        return {
          name: String(p.name),
          in: p.in as OperationParameter['in'],
          required: p.required === true || p.in === 'path',
          schema: deepResolve(resolve, p.schema ?? {}) as JsonSchema,
        };
      });
      const requestBody = resolve(op.requestBody) as { content?: Record<string, { schema?: unknown }> } | undefined;
      const jsonSchema = requestBody?.content?.['application/json']?.schema;
      const security = (op.security as unknown[] | undefined) ?? globalSecurity ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        label: `${method.toUpperCase()} ${path}`,
        parameters,
        body: jsonSchema === undefined ? undefined : (deepResolve(resolve, jsonSchema) as JsonSchema),
        public: security.length === 0,
      });
    }
  }
  return operations;
}

function refResolver(document: JsonSchema): (value: unknown) => unknown {
  return (value) => {
    let current = value;
    for (let hops = 0; hops < 20 && current && typeof current === 'object' && typeof (current as JsonSchema).$ref === 'string'; hops++) {
      const ref = (current as JsonSchema).$ref as string;
      if (!ref.startsWith('#/')) throw new Error(`external $ref ${ref} not supported`);
      current = ref
        .slice(2)
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
    }
    return current;
  };
}

/** Inlines every `$ref` (schemas of this API are not recursive; depth is capped in case). */
function deepResolve(resolve: (value: unknown) => unknown, value: unknown, depth = 0): unknown {
  if (depth > 40) return {};
  const node = resolve(value);
  if (Array.isArray(node)) return node.map((item) => deepResolve(resolve, item, depth + 1));
  if (node && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, deepResolve(resolve, item, depth + 1)]));
  }
  return node;
}

/** The path template with its parameters filled in (values already encoded). */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) => values[name] ?? `{${name}}`);
}

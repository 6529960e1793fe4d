/**
 * Shared shapes of the OpenAPI document as `components.schemas`: every schema
 * that carries a `title` (the TypeBox schemas in src/ name their shared shapes
 * that way: `Status`, `Experiment`, `Error`...) becomes one component named by
 * it, and each place it appeared becomes a `$ref`. The TypeBox schemas stay the
 * one source of truth; fastify keeps validating and serialising with them inline.
 */
import type { OpenapiDocument } from './openapi-responses.js';

type Node = Record<string, unknown>;

/** Keywords holding data, not schemas: a `title` inside an example is not a shape. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'enum', 'default', 'const']);

/** Component names allowed by OpenAPI 3.0. */
function componentName(title: string): string {
  return title.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Hoists every titled schema of the paths (and of existing components) into `components.schemas`. */
export function hoistTitledSchemas(document: OpenapiDocument): void {
  const components = (document.components ??= {});
  const existing = (components.schemas ?? {}) as Record<string, Node>;
  const shapes = collectShapes([existing, document.paths ?? {}]);
  // Copies taken before any replacement, so each component keeps its full shape to match against.
  const hoisted = new Map([...shapes].map(([name, shape]) => [name, structuredClone(shape.node)]));

  replaceShapesWithin(document.paths ?? {}, shapes);
  const schemas: Record<string, Node> = { ...existing };
  for (const [name, node] of hoisted) {
    replaceShapesWithin(node, shapes);
    schemas[name] = node;
  }
  components.schemas = schemas;
}

interface Shape {
  node: Node;
  /** Canonical JSON of the shape, to recognise its other occurrences. */
  key: string;
}

/** The children of a node that may hold schemas: not data (examples, enums...), except as property names. */
function schemaChildren(container: object, containerKey: string | undefined): Array<[string, object]> {
  const children: Array<[string, object]> = [];
  for (const [key, child] of Object.entries(container)) {
    if (typeof child !== 'object' || child === null) continue;
    if (DATA_KEYWORDS.has(key) && containerKey !== 'properties' && !Array.isArray(container)) continue;
    children.push([key, child as object]);
  }
  return children;
}

/** The first rendering of each title wins; a different shape under the same title stays inline. */
function collectShapes(roots: object[]): Map<string, Shape> {
  const shapes = new Map<string, Shape>();
  const visit = (value: object, key: string | undefined): void => {
    const node = value as Node;
    if (!Array.isArray(value) && typeof node.title === 'string' && !('$ref' in node)) {
      const name = componentName(node.title);
      if (!shapes.has(name)) shapes.set(name, { node, key: canonicalJson(node) });
    }
    for (const [childKey, child] of schemaChildren(value, key)) visit(child, childKey);
  };
  roots.forEach((root) => visit(root, undefined));
  return shapes;
}

/** Replaces, below `container`, each occurrence of a shape by its `$ref`: top-down, so the largest shape wins. */
function replaceShapesWithin(container: object, shapes: Map<string, Shape>, containerKey?: string): void {
  for (const [key, child] of schemaChildren(container, containerKey)) {
    const name = matchingShape(child, shapes);
    if (name !== undefined) (container as Node)[key] = { $ref: `#/components/schemas/${name}` };
    else replaceShapesWithin(child, shapes, key);
  }
}

function matchingShape(value: object, shapes: Map<string, Shape>): string | undefined {
  const title = (value as Node).title;
  if (Array.isArray(value) || typeof title !== 'string') return undefined;
  const name = componentName(title);
  return shapes.get(name)?.key === canonicalJson(value) ? name : undefined;
}

/** JSON with object keys sorted, so equal shapes give equal strings whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    typeof inner === 'object' && inner !== null && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

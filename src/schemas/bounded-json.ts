/**
 * Bounds on free-form JSON that clients may send and the service keeps (an interaction's
 * `context`, the fields of an ingested status beyond the ones it reads), and the check
 * that enforces them. The check walks the value with an explicit stack, never by
 * recursion, so a value nested thousands of levels deep is refused instead of
 * overflowing the call stack (as `JSON.stringify` or a response serialiser would).
 */
import { ValidationError } from '../errors.js';

/** Limits on one JSON value. Depth counts containers: the bounded value itself is level 1. */
export interface JsonBounds {
  readonly maxDepth: number;
  /** Keys per object. */
  readonly maxKeys: number;
  /** Characters (UTF-16 code units) per key. */
  readonly maxKeyLength: number;
  /** Characters (UTF-16 code units) per string value. */
  readonly maxStringLength: number;
  /** Items per array. */
  readonly maxArrayLength: number;
  /** UTF-8 bytes of the whole value serialised as JSON. */
  readonly maxBytes: number;
}

/** An interaction's `context`: a small object saying where it happened. */
export const CONTEXT_BOUNDS: JsonBounds = {
  maxDepth: 4,
  maxKeys: 20,
  maxKeyLength: 64,
  maxStringLength: 1024,
  maxArrayLength: 20,
  maxBytes: 4096,
};

/** Characters of a status's `content` (HTML); every other string of a status is held to it too. */
export const MAX_STATUS_CONTENT_LENGTH = 100_000;

/**
 * One ingested status as it is kept (its original JSON, reblogged original included).
 * Mastodon's own statuses nest about 7 deep (`reblog.filtered[].filter.keywords[]`) and
 * are a few KiB; these leave room for other servers' additions.
 */
export const STATUS_BOUNDS: JsonBounds = {
  maxDepth: 10,
  maxKeys: 100,
  maxKeyLength: 128,
  maxStringLength: MAX_STATUS_CONTENT_LENGTH,
  maxArrayLength: 100,
  maxBytes: 262_144,
};

/**
 * Any JSON request body: only the nesting is bounded here (the body limit bounds the
 * size), generously, so that it is refused before schema validation walks it.
 */
export const MAX_BODY_DEPTH = 32;

/** Only depth bounded: what the JSON body parser enforces on every body. */
export function depthOnlyBounds(maxDepth: number): JsonBounds {
  return {
    maxDepth,
    maxKeys: Infinity,
    maxKeyLength: Infinity,
    maxStringLength: Infinity,
    maxArrayLength: Infinity,
    maxBytes: Infinity,
  };
}

/** Where a value breaks its bounds: `path` in the error body's `field` form (`context.a[2]`). */
export interface JsonBoundsViolation {
  path: string;
  message: string;
}

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  segment: string | number | undefined;
}

/** Path segments longer than this are shortened in messages: keys are not bounded everywhere. */
const SHOWN_KEY_LENGTH = 64;

function pathOf(frame: Frame, root: string): string {
  const segments: (string | number)[] = [];
  for (let f: Frame | undefined = frame; f?.segment !== undefined; f = f.parent) segments.push(f.segment);
  let path = root;
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i] as string | number;
    if (typeof segment === 'number') path += `[${segment}]`;
    else {
      const key = segment.length > SHOWN_KEY_LENGTH ? `${segment.slice(0, SHOWN_KEY_LENGTH)}…` : segment;
      path = path ? `${path}.${key}` : key;
    }
  }
  return path;
}

function violationAt(frame: Frame, root: string, problem: string): JsonBoundsViolation {
  const path = pathOf(frame, root);
  return { path, message: `${path || 'body'} ${problem}` };
}

/**
 * A place where `value` breaks `bounds` (a container's own keys and strings before what
 * is nested in it), or undefined when it is within them. Iterative, with only containers
 * on the stack; the size is measured once the depth is known to be bounded.
 */
export function findJsonBoundsViolation(value: unknown, bounds: JsonBounds, root = ''): JsonBoundsViolation | undefined {
  const top: Frame = { value, depth: 1, parent: undefined, segment: undefined };
  if (typeof value === 'string' && value.length > bounds.maxStringLength)
    return violationAt(top, root, `is longer than ${bounds.maxStringLength} characters`);
  const stack: Frame[] = isContainer(value) ? [top] : [];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.depth > bounds.maxDepth) return violationAt(frame, root, `is nested deeper than ${bounds.maxDepth} levels`);
    const current = frame.value as Record<string, unknown> | unknown[];
    const isArray = Array.isArray(current);
    const keys = isArray ? undefined : Object.keys(current);
    const count = keys ? keys.length : (current as unknown[]).length;
    if (isArray && count > bounds.maxArrayLength) return violationAt(frame, root, `has more than ${bounds.maxArrayLength} items`);
    if (!isArray && count > bounds.maxKeys) return violationAt(frame, root, `has more than ${bounds.maxKeys} keys`);
    const nested: Frame[] = [];
    for (let i = 0; i < count; i++) {
      const key = keys ? (keys[i] as string) : undefined;
      if (key !== undefined && key.length > bounds.maxKeyLength)
        return violationAt(frame, root, `has a key longer than ${bounds.maxKeyLength} characters`);
      const child = key !== undefined ? (current as Record<string, unknown>)[key] : (current as unknown[])[i];
      if (typeof child === 'string' && child.length > bounds.maxStringLength) {
        return violationAt(
          { value: child, depth: frame.depth + 1, parent: frame, segment: key ?? i },
          root,
          `is longer than ${bounds.maxStringLength} characters`,
        );
      }
      if (isContainer(child)) nested.push({ value: child, depth: frame.depth + 1, parent: frame, segment: key ?? i });
    }
    // Pushed in reverse so that nested containers are visited in document order.
    for (let i = nested.length - 1; i >= 0; i--) stack.push(nested[i] as Frame);
  }
  if (bounds.maxBytes !== Infinity && utf8Length(JSON.stringify(value) ?? '') > bounds.maxBytes) {
    return { path: root, message: `${root || 'body'} is larger than ${bounds.maxBytes} bytes as JSON` };
  }
  return undefined;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** `value` serialised as JSON when it is within `bounds`; a ValidationError naming the offending path otherwise. */
export function stringifyWithinBounds(value: unknown, bounds: JsonBounds, field: string): string {
  assertWithinBounds(value, bounds, field);
  return JSON.stringify(value);
}

/** Throws a ValidationError naming the offending path when `value` breaks `bounds`. */
export function assertWithinBounds(value: unknown, bounds: JsonBounds, field: string): void {
  const violation = findJsonBoundsViolation(value, bounds, field);
  if (violation) throw new ValidationError(violation.message, violation.path || undefined);
}

/**
 * Stored JSON text parsed, or undefined when it breaks `bounds` (rows written before the
 * bounds existed): too long text is not even parsed, so such a row costs nothing to skip.
 */
export function parseWithinBounds(text: string, bounds: JsonBounds): unknown {
  // A UTF-16 code unit is at least one UTF-8 byte, so more units than bytes allowed is too big.
  if (text.length > bounds.maxBytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return findJsonBoundsViolation(value, bounds) ? undefined : value;
}

/** UTF-8 length of a string (lone surrogates, which JSON.stringify escapes, count as 3). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

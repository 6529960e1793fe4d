/**
 * Enforces each route's declared access rule (server/platform/auth/access-rule.ts), the one
 * place that answers 401 (no valid credentials) and 403 (valid but not allowed).
 *
 * When a route is added, its rule becomes route-level hooks, so they run after the
 * app-wide ones (identity, then rate limiting: a 401 still counts against the limits):
 * - onRequest, from the headers alone, before the body is read: a valid token (401),
 *   holding the rule's scope (403). An anonymous request with a bad body is 401, not 400.
 * - preHandler, after validation, for a user named in the query or body: that user's
 *   own token or an admin (403); the route then reads the same validated value.
 * - a `'resource'` user is checked by the route itself through `authorizeUser`, once
 *   it has loaded the resource (an interaction's owner, each event's user).
 * A public rule also marks the route's OpenAPI operation `security: []`. A route without
 * a rule is logged and left unchecked; test/server/foundation/access-rules.test.ts walks
 * every route of the app and fails on one.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { hasScope, type AuthenticatedIdentity } from '../../../src/auth/identity.js';
import { AuthenticationError, ForbiddenError, ValidationError } from '../../../src/errors.js';
import { isUserRule, thirdPartyRule, type AccessRule, type UserRule } from '../auth/access-rule.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The rule declared for a route (method and URL pattern as registered), or undefined when it has none. */
    accessRule(method: string, url: string): AccessRule | undefined;
  }
  interface FastifyRequest {
    /** The user whose data a `{ scope, user }` rule admitted this request to (set before the handler). */
    accessUserId: string | undefined;
  }
}

type Hook = (request: FastifyRequest) => Promise<void>;

/** Marks the hooks added here, so a route seen twice (GET and its HEAD) gets them once. */
const ACCESS_HOOK = Symbol('access-hook');

/** The caller's identity, or 401 when it has no valid credentials. */
function requireAuthenticated(request: FastifyRequest): AuthenticatedIdentity {
  const identity = request.identity;
  if (identity.kind === 'anonymous') {
    if (identity.rejectedToken && request.tokenRejection) throw request.tokenRejection;
    throw new AuthenticationError(
      identity.rejectedToken ? 'The bearer token is invalid, expired or revoked' : 'A bearer token is required',
    );
  }
  return identity;
}

/** 403 unless the identity acts for `userId` or is an admin. */
function requireOwnerOrAdmin(identity: AuthenticatedIdentity, userId: string, field?: string): void {
  if (identity.scopes.has('admin') || identity.userId === userId) return;
  throw new ForbiddenError(
    field === undefined
      ? `This token may not access the data of user ${userId}`
      : `${field}: this token may only act on its own user's data`,
  );
}

function credentialsHook(rule: Exclude<AccessRule, 'public'>): Hook {
  return async (request) => {
    const identity = requireAuthenticated(request);
    if (!hasScope(identity, rule.scope)) throw new ForbiddenError(`This operation needs the "${rule.scope}" scope`);
  };
}

/** The user a query or body rule names, from the validated request. */
function namedUser(request: FastifyRequest, rule: UserRule): string {
  const from = (rule.user === 'query.user_id' ? request.query : request.body) as { user_id?: unknown } | undefined;
  const named = typeof from?.user_id === 'string' ? from.user_id : undefined;
  const userId = named ?? (rule.user === 'body.user_id ?? token' ? requireAuthenticated(request).userId : null);
  if (userId === null) throw new ValidationError('Missing required field: user_id (the token is not bound to a user)', 'user_id');
  return userId;
}

function ownerHook(rule: UserRule): Hook {
  return async (request) => {
    const userId = namedUser(request, rule);
    requireOwnerOrAdmin(requireAuthenticated(request), userId);
    request.accessUserId = userId;
  };
}

function marked(hook: Hook): Hook {
  return Object.assign(hook, { [ACCESS_HOOK]: true });
}

function asList<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** Turns a route's declared rule into its hooks (see the file's comment). */
function applyRule(route: RouteOptions, rule: AccessRule): void {
  if (rule === 'public') {
    if (route.schema) route.schema = { ...route.schema, security: [] };
    return;
  }
  const onRequest = asList(route.onRequest);
  if (onRequest.some((hook) => ACCESS_HOOK in hook)) return;
  route.onRequest = [marked(credentialsHook(rule)), ...onRequest] as NonNullable<RouteOptions['onRequest']>;
  if (isUserRule(rule) && rule.user !== 'resource') {
    route.preHandler = [marked(ownerHook(rule)), ...asList(route.preHandler)] as NonNullable<RouteOptions['preHandler']>;
  }
}

/** Registers the onRoute hook that enforces every route's rule; call it before any route is added. */
export function registerAccessRules(app: FastifyInstance): void {
  const rules = new Map<string, AccessRule>();
  app.decorate('accessRule', (method: string, url: string) => rules.get(`${method} ${url}`) ?? thirdPartyRule(method, url));
  app.decorateRequest('accessUserId', undefined);
  app.addHook('onRoute', (route) => {
    const rule = route.config?.access ?? thirdPartyRule(asList(route.method)[0] ?? '', route.url);
    if (rule === undefined) {
      // Not enforced (test-only routes rely on that); test/server/foundation/access-rules.test.ts fails the app's own.
      app.log.warn({ method: route.method, url: route.url }, 'route declares no access rule (config.access)');
      return;
    }
    for (const method of asList(route.method)) rules.set(`${method} ${route.url}`, rule);
    applyRule(route, rule);
  });
}

/**
 * For a route whose rule is `{ scope, user: 'resource' }`, once it knows the user the
 * resource belongs to: passes for that user's own token or an admin, else 403 (`field`
 * names where the user came from, e.g. `events[2].user_id`). Returns the identity.
 */
export function authorizeUser(request: FastifyRequest, userId: string, field?: string): AuthenticatedIdentity {
  const rule = request.routeOptions.config.access;
  if (!isUserRule(rule) || rule.user !== 'resource') {
    throw new Error(`authorizeUser called on ${request.method} ${request.routeOptions.url ?? '?'}, whose rule is not { user: 'resource' }`);
  }
  const identity = requireAuthenticated(request);
  requireOwnerOrAdmin(identity, userId, field);
  return identity;
}

/** The identity a non-public rule admitted (401 if called where none was required and none was sent). */
export function callerIdentity(request: FastifyRequest): AuthenticatedIdentity {
  return requireAuthenticated(request);
}

/** The user a `{ scope, user }` rule admitted the request to (query, body, or the token's own user). */
export function admittedUser(request: FastifyRequest): string {
  if (request.accessUserId === undefined) {
    throw new Error(`${request.method} ${request.routeOptions.url ?? '?'} has no user rule checked before its handler`);
  }
  return request.accessUserId;
}

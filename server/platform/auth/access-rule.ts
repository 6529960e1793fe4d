/**
 * The access rule vocabulary: who may call a route, declared once in the route's
 * options (`config: { access: … }`) and enforced by server/platform/plugins/access.ts.
 *
 * - `'public'`: anyone, no token needed.
 * - `{ scope }`: a valid token holding the scope (`admin` implies `read` and `write`).
 * - `{ scope, user }`: one user's own data: a token with the scope bound to that user,
 *   or an admin token. `user` says where the user is named: the validated query or
 *   body, the body or else the token's own user, or `'resource'` for a user only known
 *   once the route has loaded its resource (the route then calls `authorizeUser`).
 */
import type { Scope } from '../../../src/auth/identity.js';

/** Scopes over one user's own data. */
export type UserScope = Extract<Scope, 'read' | 'write'>;

/** Where a route names the user whose data it touches. */
export type UserSource = 'query.user_id' | 'body.user_id' | 'body.user_id ?? token' | 'resource';

export interface ScopeRule {
  readonly scope: Scope;
  /** Absent: a rule naming a user is a UserRule (and `admin` never needs one). */
  readonly user?: never;
}

export type UserRule =
  | { readonly scope: UserScope; readonly user: Exclude<UserSource, 'resource'> }
  /** `owner` says, in words, whose the resource is (the README's table of routes shows it). */
  | { readonly scope: UserScope; readonly user: 'resource'; readonly owner: string };

export type AccessRule = 'public' | ScopeRule | UserRule;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call this route (server/platform/auth/access-rule.ts); every route declares one. */
    access?: AccessRule;
  }
}

/**
 * Routes that third-party plugins register before the access plugin can see them, with
 * the rule they get: the API explorer and its document (@fastify/swagger-ui), and CORS
 * preflights (@fastify/cors answers `OPTIONS *`; a browser sends no credentials there).
 */
const THIRD_PARTY_RULES: ReadonlyArray<{ method: string | undefined; prefix: string; rule: AccessRule }> = [
  { method: undefined, prefix: '/docs', rule: 'public' },
  { method: 'OPTIONS', prefix: '*', rule: 'public' },
];

/** The rule of a third-party route (see THIRD_PARTY_RULES), or undefined for any other route. */
export function thirdPartyRule(method: string, url: string): AccessRule | undefined {
  const match = THIRD_PARTY_RULES.find(
    (entry) => (entry.method === undefined || entry.method === method) && (url === entry.prefix || url.startsWith(`${entry.prefix}/`)),
  );
  return match?.rule;
}

/** True for a rule about one user's data. */
export function isUserRule(rule: AccessRule | undefined): rule is UserRule {
  return typeof rule === 'object' && 'user' in rule;
}

/** The rule in words, for the README's table of routes. */
export function describeAccessRule(rule: AccessRule): string {
  if (rule === 'public') return 'public';
  if (!isUserRule(rule)) return `\`${rule.scope}\` scope`;
  const where =
    rule.user === 'resource'
      ? rule.owner
      : rule.user === 'body.user_id ?? token'
        ? "`body.user_id`, else the token's user"
        : `\`${rule.user}\``;
  return `own user (${where}) with \`${rule.scope}\`, or \`admin\``;
}

/**
 * The kysely `Database` interface: every table of the service, typed one way. The platform lists
 * its own tables here; each feature adds its own from its `*.tables.ts` by declaration merging
 * (`declare module '…/platform/db/database.js' { interface Database extends PostTables {} }`, as
 * the platform's plugins add to fastify's types), so this floor names no feature.
 * Row types stay inside repositories; services map them to domain types.
 */
import type { AgentTables } from '../agents/agents.tables.js';
import type { AuthTables } from '../auth/auth.tables.js';

export interface Database extends AuthTables, AgentTables {}

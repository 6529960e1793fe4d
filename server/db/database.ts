/**
 * The kysely `Database` interface: one table type per feature, assembled here.
 * Row types stay inside repositories; services map them to domain types.
 */
import type { AuthTables } from '../auth/auth.tables.js';

export interface Database extends AuthTables {}

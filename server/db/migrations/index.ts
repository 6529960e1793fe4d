/**
 * The migrations, listed explicitly (not read from a folder) so they work after
 * compiling. Append only; never edit a migration that has shipped.
 */
import type { Migration } from 'kysely';
import * as m0001 from './0001-tokens.js';

export const MIGRATIONS: Record<string, Migration> = {
  '0001-tokens': m0001,
};

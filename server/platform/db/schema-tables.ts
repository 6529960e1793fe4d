/**
 * The tables (and their columns) of this deployment's own schema. kysely's PostgreSQL
 * introspector reads every table of EVERY schema of the database, through functions that take
 * schema names: a schema another session drops meanwhile (a deployment removed, a test run
 * ending) fails the read with `schema "..." does not exist`, other deployments' tables come
 * back under the same names as this one's, and a database with many schemas makes each read
 * slow. Here PostgreSQL is asked about one schema, by its pg_catalog rows; SQLite has one
 * schema and kysely's introspector reads it.
 */
import { PostgresAdapter, sql, type ColumnMetadata, type Kysely, type TableMetadata } from 'kysely';

interface ColumnRow {
  table: string;
  kind: string;
  column: string | null;
  data_type: string | null;
  not_null: boolean | null;
  has_default: boolean | null;
}

/**
 * The tables and views of `schema` (PostgreSQL; default: the connection's current schema) or
 * of the SQLite file, kysely's own bookkeeping tables included, in name order.
 */
export async function schemaTables<DB>(db: Kysely<DB>, schema?: string): Promise<TableMetadata[]> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
    return [...tables].sort((a, b) => a.name.localeCompare(b.name));
  }
  const { rows } = await sql<ColumnRow & { schema: string }>`
    SELECT n.nspname AS schema, c.relname AS table, c.relkind AS kind, a.attname AS column,
      format_type(a.atttypid, a.atttypmod) AS data_type, a.attnotnull AS not_null, a.atthasdef AS has_default
    FROM pg_catalog.pg_class c
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE n.nspname = ${schema ?? sql`current_schema()`} AND c.relkind IN ('r', 'p', 'v')
    ORDER BY c.relname, a.attnum`.execute(db);
  const tables = new Map<string, TableMetadata & { columns: ColumnMetadata[] }>();
  for (const row of rows) {
    let table = tables.get(row.table);
    if (table === undefined) {
      table = { name: row.table, schema: row.schema, isView: row.kind === 'v', columns: [] };
      tables.set(row.table, table);
    }
    if (row.column === null) continue;
    table.columns.push({
      name: row.column,
      dataType: row.data_type ?? '',
      isNullable: row.not_null !== true,
      hasDefaultValue: row.has_default === true,
      isAutoIncrementing: false,
    });
  }
  return [...tables.values()];
}

/**
 * The records of `recsvc import` (docs/import.md): a CSV row or a JSON Lines value turned into
 * what `POST /api/v1/posts/batch` and `POST /api/v1/interactions/batch` take. Pure: the caller
 * reads the file and names the file and line in front of the message of a RowError. Only the
 * shape is checked here (a value is an object, required columns are present); everything else
 * (action types, times, bounds) is the server's to refuse, with the same rules as any write.
 */

/** What an import brings. */
/** Most items per request: what both batch routes take. */
export const MAX_IMPORT_BATCH = 500;

export const IMPORT_KINDS = ['posts', 'interactions'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

/** A record the importer cannot turn into an API item (the message names the column or field). */
export class RowError extends Error {}

interface ColumnSet {
  readonly required: readonly string[];
  readonly optional: readonly string[];
}

/** The CSV columns of each kind (header names, any order). */
export const CSV_COLUMNS: Readonly<Record<ImportKind, ColumnSet>> = {
  posts: {
    required: ['id', 'created_at', 'account_id', 'content'],
    optional: ['username', 'acct', 'display_name', 'tags', 'language', 'visibility', 'url', 'uri', 'sensitive', 'spoiler_text'],
  },
  interactions: { required: ['user_id', 'post_id', 'action_type'], optional: ['created_at'] },
};

/**
 * Other names a column may have: `action` for `action_type`, as the interactions files
 * `recsvc eval` reads name it (src/evaluation/import-format.ts), so that one file serves both.
 */
const COLUMN_ALIASES: Readonly<Record<ImportKind, Readonly<Record<string, string>>>> = {
  posts: {},
  interactions: { action: 'action_type' },
};

/** The header with each alias replaced by its column's name. */
export function canonicalHeader(kind: ImportKind, header: readonly string[]): string[] {
  return header.map((column) => COLUMN_ALIASES[kind][column] ?? column);
}

/**
 * Refuses a CSV header (canonicalHeader's) with an unknown column (a typo would drop data
 * silently), without a required one, or naming one twice.
 */
export function checkCsvHeader(kind: ImportKind, header: readonly string[]): void {
  const { required, optional } = CSV_COLUMNS[kind];
  const known = new Set([...required, ...optional]);
  const unknown = header.filter((column) => !known.has(column));
  if (unknown.length > 0) {
    throw new RowError(`unknown column ${quoteList(unknown)} (${kind} columns: ${[...required, ...optional].join(', ')})`);
  }
  const missing = required.filter((column) => !header.includes(column));
  if (missing.length > 0) throw new RowError(`missing column ${quoteList(missing)} (required: ${required.join(', ')})`);
  const seen = new Set<string>();
  for (const column of header) {
    if (seen.has(column)) throw new RowError(`column "${column}" appears twice`);
    seen.add(column);
  }
}

/** The API item of a CSV row (keyed by header); empty optional cells are left out. */
export function itemFromCsv(kind: ImportKind, row: Readonly<Record<string, string>>): Record<string, unknown> {
  for (const column of CSV_COLUMNS[kind].required) {
    if ((row[column] ?? '') === '') throw new RowError(`${column} is empty`);
  }
  return kind === 'posts' ? statusFromCsv(row) : interactionFromCsv(row);
}

/** The API item of a JSON Lines value: the object as the API takes it (a status, or an interaction; `action` read as `action_type`). */
export function itemFromJson(kind: ImportKind, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RowError(`expected a JSON object, found ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`);
  }
  const item = value as Record<string, unknown>;
  if (kind === 'interactions' && 'action' in item && !('action_type' in item)) {
    const { action, ...rest } = item;
    return { ...rest, action_type: action };
  }
  return item;
}

function interactionFromCsv(row: Readonly<Record<string, string>>): Record<string, unknown> {
  return {
    user_id: row.user_id,
    post_id: row.post_id,
    action_type: row.action_type,
    ...present(row, 'created_at'),
  };
}

function statusFromCsv(row: Readonly<Record<string, string>>): Record<string, unknown> {
  const username = row.username || row.account_id!;
  const tags = (row.tags ?? '')
    .split(/[\s,]+/)
    .map((tag) => tag.replace(/^#/, ''))
    .filter((tag) => tag !== '');
  return {
    id: row.id,
    created_at: row.created_at,
    content: row.content,
    account: {
      id: row.account_id,
      username,
      acct: row.acct || username,
      ...present(row, 'display_name'),
    },
    tags: tags.map((name) => ({ name })),
    ...present(row, 'language'),
    ...present(row, 'visibility'),
    ...present(row, 'url'),
    ...present(row, 'uri'),
    ...present(row, 'spoiler_text'),
    ...(row.sensitive ? { sensitive: parseBoolean(row.sensitive, 'sensitive') } : {}),
  };
}

function present(row: Readonly<Record<string, string>>, column: string): Record<string, string> {
  const value = row[column];
  return value === undefined || value === '' ? {} : { [column]: value };
}

function parseBoolean(text: string, column: string): boolean {
  if (/^(true|1|yes)$/i.test(text)) return true;
  if (/^(false|0|no)$/i.test(text)) return false;
  throw new RowError(`${column} must be true or false, found "${text}"`);
}

function quoteList(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(', ');
}

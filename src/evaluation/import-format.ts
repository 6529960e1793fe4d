/**
 * The files an evaluation reads, in the formats an import reads: posts as Mastodon statuses
 * (one JSON object per line), interactions as JSON Lines `{user_id, post_id, action,
 * created_at}` (`action_type` accepted for `action`) or a CSV with that header. Parsers are
 * push parsers (`LineParser`): the CLI streams a file through them; a malformed line is an
 * `InputFileError` naming the file and line.
 */
import { InputFileError } from '../experiments/io/input-file-error.js';
import type { LineParser } from '../experiments/io/line-parser.js';
import { htmlToText, normaliseTag } from '../ranking/text.js';
import { ACTION_TYPES, type InteractionAction } from '../schemas/interaction.schema.js';
import type { EvalInteraction, EvalPost } from './dataset.js';

/** A Mastodon status as the posts file holds it (only the fields the evaluation reads are typed). */
export interface StatusRecord {
  readonly id: string;
  readonly created_at: string;
  readonly content: string;
  readonly visibility?: string;
  readonly sensitive?: boolean;
  readonly spoiler_text?: string;
  readonly language?: string | null;
  readonly tags?: readonly { readonly name: string; readonly url?: string }[];
  readonly account: { readonly id: string; readonly username: string; readonly [key: string]: unknown };
  readonly reblog?: StatusRecord | null;
  readonly [key: string]: unknown;
}

/** One interaction as the interactions file holds it. */
export interface InteractionRecord {
  readonly user_id: string;
  readonly post_id: string;
  readonly action: InteractionAction;
  /** ISO 8601. */
  readonly created_at: string;
}

/** The CSV header of an interactions file. */
export const INTERACTIONS_CSV_HEADER = 'user_id,post_id,action,created_at';

/** A status's post (and, for a reblog, its original first); a reblog inherits the original's text and tags. */
export function postsOfStatus(value: unknown): EvalPost[] {
  const status = record(value, 'a status');
  const reblog = status.reblog;
  if (reblog !== undefined && reblog !== null) {
    const [original] = postsOfStatus(reblog);
    const own = postOf(status, original);
    return [original as EvalPost, own];
  }
  return [postOf(status, undefined)];
}

function postOf(status: Record<string, unknown>, original: EvalPost | undefined): EvalPost {
  const id = text(status.id, 'id');
  const createdAtMs = time(status.created_at, 'created_at');
  const account = record(status.account, 'account');
  const tags = Array.isArray(status.tags)
    ? [...new Set(status.tags.map((t) => normaliseTag(typeof t === 'string' ? t : text(record(t, 'tags[]').name, 'tags[].name'))))]
    : [];
  const visibility = typeof status.visibility === 'string' ? status.visibility : 'public';
  return {
    id,
    accountId: text(account.id, 'account.id'),
    accountUsername: typeof account.username === 'string' ? account.username : '',
    text: original?.text ?? htmlToText(typeof status.content === 'string' ? status.content : ''),
    tags: original?.tags ?? tags.filter((t) => /^[\p{L}\p{N}_]{1,100}$/u.test(t)),
    language: typeof status.language === 'string' ? status.language : null,
    createdAtMs,
    favourites: 0,
    reblogs: 0,
    replies: 0,
    reblogOfId: original?.id ?? null,
    sensitive: original?.sensitive ?? status.sensitive === true,
    visibility,
  };
}

/** An interaction from a JSON object (`action` or `action_type`). */
export function interactionOf(value: unknown): EvalInteraction {
  const row = record(value, 'an interaction');
  const action = row.action ?? row.action_type;
  if (typeof action !== 'string' || !(ACTION_TYPES as readonly string[]).includes(action)) {
    throw new Error(`action: expected one of ${ACTION_TYPES.join(', ')} (got ${JSON.stringify(action)})`);
  }
  return {
    userId: text(row.user_id, 'user_id'),
    postId: text(row.post_id, 'post_id'),
    action: action as InteractionAction,
    atMs: time(row.created_at, 'created_at'),
  };
}

/** A push parser of a posts file (JSON Lines of statuses; blank lines skipped). */
export function createPostsParser(file: string): LineParser<EvalPost[]> {
  const posts: EvalPost[] = [];
  let line = 0;
  return {
    line(raw) {
      line += 1;
      if (raw.trim() === '') return;
      posts.push(...guarded(file, line, () => postsOfStatus(json(raw))));
    },
    finish: () => posts,
  };
}

/** A push parser of an interactions file: JSON Lines, or a CSV when the first line is its header. */
export function createInteractionsParser(file: string): LineParser<EvalInteraction[]> {
  const out: EvalInteraction[] = [];
  let line = 0;
  let csv: string[] | undefined;
  return {
    line(raw) {
      line += 1;
      const textLine = (line === 1 ? raw.replace(/^\uFEFF/, '') : raw).replace(/\r$/, '');
      if (textLine.trim() === '') return;
      if (line === 1 && !textLine.trimStart().startsWith('{')) {
        csv = textLine.split(',').map((h) => h.trim());
        for (const column of ['user_id', 'post_id', 'created_at'])
          if (!csv.includes(column)) throw new InputFileError(file, 1, 1, `CSV header must have ${INTERACTIONS_CSV_HEADER} (no ${column})`);
        return;
      }
      const columns = csv;
      out.push(guarded(file, line, () => interactionOf(columns ? csvRow(columns, textLine) : json(textLine))));
    },
    finish: () => out,
  };
}

/** Statuses and interactions as the JSON Lines text an import reads. */
export function toJsonLines(values: readonly unknown[]): string {
  return values.map((v) => `${JSON.stringify(v)}\n`).join('');
}

function csvRow(columns: string[], raw: string): Record<string, string> {
  const cells = raw.split(',');
  if (cells.length !== columns.length) throw new Error(`expected ${columns.length} columns, got ${cells.length}`);
  return Object.fromEntries(columns.map((c, i) => [c, (cells[i] ?? '').trim()]));
}

function guarded<T>(file: string, line: number, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new InputFileError(file, line, 1, (error as Error).message);
  }
}

function json(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new Error('not a JSON object');
  }
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`expected ${what} (a JSON object)`);
  return value as Record<string, unknown>;
}

function text(value: unknown, field: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value === '') throw new Error(`${field}: expected a non-empty string`);
  return value;
}

function time(value: unknown, field: string): number {
  const ms = typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : Number.NaN;
  if (!Number.isFinite(ms)) throw new Error(`${field}: expected an ISO 8601 time (got ${JSON.stringify(value)})`);
  return ms;
}

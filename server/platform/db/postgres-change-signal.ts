/**
 * PostgreSQL's counterpart of SQLite's data_version for the token cache (and the privacy
 * levels' equivalent, below): one connection of
 * its own LISTENs on `recsvc_tokens_changed` (sent at commit by migration 0024's trigger on
 * `tokens`, whoever wrote: another instance, `recsvc token revoke`, psql), and each
 * notification for this schema moves the version on, so caches keyed on it drop their
 * entries. A revocation then reaches every instance as soon as its notification arrives
 * (milliseconds; the commit itself returns to the revoker first).
 *
 * The same connection LISTENs on `recsvc_privacy_changed` (migration 0026): each changed user's
 * id is passed on, so every instance's privacy policy re-reads that user's level at once; and on
 * `recsvc_experiments_changed` (migration 0027): every instance's experiments runtime forgets
 * its cached experiments when any process changed one; and on `recsvc_user_settings_changed`
 * (migration 0030): every instance forgets that user's cached settings and enrolment.
 *
 * Whenever the signal cannot be trusted (not yet listening, the trigger not installed yet,
 * the connection lost and being reopened) the version moves on at every read: caches
 * re-read the database each time, so nothing revoked is ever served from one.
 */
import type { Client, ClientConfig } from 'pg';

type Pg = typeof import('pg');

export const TOKENS_CHANGED_CHANNEL = 'recsvc_tokens_changed';
/** Migration 0026: payload `<schema>/<user id>` for each changed row of privacy_settings. */
export const PRIVACY_CHANGED_CHANNEL = 'recsvc_privacy_changed';

/** Migration 0027: payload `<schema>` for each statement that changed an experiment, its variants or its periods. */
export const EXPERIMENTS_CHANGED_CHANNEL = 'recsvc_experiments_changed';

/** Migration 0030: payload `<schema>/<user id>` for each changed row of user_settings. */
export const USER_SETTINGS_CHANGED_CHANNEL = 'recsvc_user_settings_changed';

/** Told the user whose privacy row changed; `undefined`: changes may have been missed, re-read everyone. */
export type PrivacyChangeListener = (userId: string | undefined) => void;

/** Told the user whose settings row changed; `undefined`: changes may have been missed, forget everyone's. */
export type UserSettingsChangeListener = (userId: string | undefined) => void;

export interface ChangeSignal {
  /** Changes after every notified change; at every read while the signal is not trusted. */
  version(): number;
  /** True while listening with the trigger installed. */
  trusted(): boolean;
  /** Calls `listener` for each committed change of a user's privacy row, and with undefined after each (re)connection. */
  onPrivacyChange(listener: PrivacyChangeListener): void;
  /** Calls `listener` after each committed change of the experiment tables, and after each (re)connection. */
  onExperimentsChange(listener: () => void): void;
  /** Calls `listener` for each committed change of a user's settings row, and with undefined after each (re)connection. */
  onUserSettingsChange(listener: UserSettingsChangeListener): void;
  close(): Promise<void>;
}

export interface ChangeSignalOptions {
  /** Before reopening a lost connection (ms). */
  retryMs?: number;
  /** Between checks for the trigger while it is missing (a database not migrated yet), in ms. */
  recheckMs?: number;
}

const TRIGGER_INSTALLED = `SELECT 1 FROM pg_trigger t
  JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE t.tgname = 'tokens_changed' AND c.relname = 'tokens' AND n.nspname = current_schema()`;

/** Starts listening (in the background: the first reads are untrusted until it is set up). */
export function listenForTokenChanges(pg: Pg, config: ClientConfig, options: ChangeSignalOptions = {}): ChangeSignal {
  const retryMs = options.retryMs ?? 1_000;
  const recheckMs = options.recheckMs ?? 30_000;
  let version = 0;
  let trusted = false;
  let closed = false;
  let client: Client | undefined;
  let schema: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  const privacyListeners: PrivacyChangeListener[] = [];
  const tellPrivacy = (userId: string | undefined): void => {
    for (const listener of privacyListeners) listener(userId);
  };
  const experimentsListeners: Array<() => void> = [];
  const tellExperiments = (): void => {
    for (const listener of experimentsListeners) listener();
  };
  const userSettingsListeners: UserSettingsChangeListener[] = [];
  const tellUserSettings = (userId: string | undefined): void => {
    for (const listener of userSettingsListeners) listener(userId);
  };

  const later = (work: () => Promise<void>, ms: number): void => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void work(), ms);
    timer.unref();
  };

  const lost = (lostClient: Client): void => {
    if (client !== lostClient) return;
    trusted = false;
    client = undefined;
    lostClient.removeAllListeners();
    lostClient.on('error', () => undefined);
    void lostClient.end().catch(() => undefined);
    later(connect, retryMs);
  };

  const confirm = async (): Promise<void> => {
    const current = client;
    if (!current || closed) return;
    try {
      const { rowCount } = await current.query(TRIGGER_INSTALLED);
      if (client !== current) return;
      trusted = (rowCount ?? 0) > 0;
      if (!trusted) later(confirm, recheckMs);
    } catch {
      lost(current);
    }
  };

  async function connect(): Promise<void> {
    if (closed) return;
    const next = new pg.Client(config);
    client = next;
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    next.on('notification', (message) => {
      if (message.channel === TOKENS_CHANGED_CHANNEL && message.payload === schema) version += 1;
      const prefix = `${schema}/`;
      if (message.channel === PRIVACY_CHANGED_CHANNEL && message.payload?.startsWith(prefix))
        tellPrivacy(message.payload.slice(prefix.length));
      if (message.channel === EXPERIMENTS_CHANGED_CHANNEL && message.payload === schema) tellExperiments();
      if (message.channel === USER_SETTINGS_CHANGED_CHANNEL && message.payload?.startsWith(prefix))
        tellUserSettings(message.payload.slice(prefix.length));
    });
    try {
      await next.connect();
      // LISTEN before checking the trigger: no change can fall between the two.
      await next.query(`LISTEN ${TOKENS_CHANGED_CHANNEL}`);
      await next.query(`LISTEN ${PRIVACY_CHANGED_CHANNEL}`);
      await next.query(`LISTEN ${EXPERIMENTS_CHANGED_CHANNEL}`);
      await next.query(`LISTEN ${USER_SETTINGS_CHANGED_CHANNEL}`);
      const { rows } = await next.query<{ schema: string }>('SELECT current_schema() AS schema');
      schema = rows[0]?.schema;
      // Whatever changed while nobody listened (before this connection, or while it was lost) is re-read.
      tellPrivacy(undefined);
      tellExperiments();
      tellUserSettings(undefined);
      await confirm();
    } catch {
      lost(next);
    }
  }

  void connect();
  return {
    version: () => (trusted ? version : ++version),
    trusted: () => trusted,
    onPrivacyChange: (listener) => void privacyListeners.push(listener),
    onExperimentsChange: (listener) => void experimentsListeners.push(listener),
    onUserSettingsChange: (listener) => void userSettingsListeners.push(listener),
    close: async () => {
      closed = true;
      trusted = false;
      clearTimeout(timer);
      const current = client;
      client = undefined;
      if (current) {
        current.removeAllListeners();
        current.on('error', () => undefined);
        await current.end().catch(() => undefined);
      }
    },
  };
}

/**
 * PostgreSQL's counterpart of SQLite's data_version for the token cache: one connection of
 * its own LISTENs on `recsvc_tokens_changed` (sent at commit by migration 0024's trigger on
 * `tokens`, whoever wrote: another instance, `recsvc token revoke`, psql), and each
 * notification for this schema moves the version on, so caches keyed on it drop their
 * entries. A revocation then reaches every instance as soon as its notification arrives
 * (milliseconds; the commit itself returns to the revoker first).
 *
 * Whenever the signal cannot be trusted (not yet listening, the trigger not installed yet,
 * the connection lost and being reopened) the version moves on at every read: caches
 * re-read the database each time, so nothing revoked is ever served from one.
 */
import type { Client, ClientConfig } from 'pg';

type Pg = typeof import('pg');

export const TOKENS_CHANGED_CHANNEL = 'recsvc_tokens_changed';

export interface ChangeSignal {
  /** Changes after every notified change; at every read while the signal is not trusted. */
  version(): number;
  /** True while listening with the trigger installed. */
  trusted(): boolean;
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
    });
    try {
      await next.connect();
      // LISTEN before checking the trigger: no change can fall between the two.
      await next.query(`LISTEN ${TOKENS_CHANGED_CHANNEL}`);
      const { rows } = await next.query<{ schema: string }>('SELECT current_schema() AS schema');
      schema = rows[0]?.schema;
      await confirm();
    } catch {
      lost(next);
    }
  }

  void connect();
  return {
    version: () => (trusted ? version : ++version),
    trusted: () => trusted,
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

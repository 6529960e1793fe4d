/**
 * The debug capability's `callback` (debug/v0.1): a server's admin asks the provider to call
 * back (Mastodon's "Callback" link beside the provider, Fasp::Provider#perform_debug_call:
 * `POST /debug/v0/callback/logs` with `{"hello":"world"}`). The provider logs the call (when,
 * from which address, its body), answers 201, then posts the same body, signed, to the
 * server's `/debug/v0/callback/responses` and records the status it got (Mastodon answers
 * 201 and lists the callbacks on its admin page). `recsvc fasp show <id>` lists the log.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { faspRequest } from './fasp-client.js';
import type { FaspService } from './fasp.service.js';

export interface DebugCallback {
  readonly id: string;
  readonly ip: string;
  /** The body as received ('' when empty). */
  readonly body: string;
  /** The status the callback got from the server; null while pending or when it could not connect. */
  readonly callbackStatus: number | null;
  readonly createdAtMs: number;
}

/** Callbacks kept per server: older ones are dropped as new ones come. */
export const DEBUG_CALLBACKS_KEPT = 100;

export class FaspDebugService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly servers: FaspService,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /** Logs a call; returns its id for `callBack`. */
  async record(serverId: string, ip: string, body: string, nowMs: number): Promise<string> {
    const id = `${nowMs.toString(36)}-${randomBytes(6).toString('hex')}`;
    await this.db
      .insertInto('fasp_debug_callbacks')
      .values({ id, server_id: serverId, ip, body, callback_status: null, created_at_ms: nowMs })
      .execute();
    const stale = await this.db
      .selectFrom('fasp_debug_callbacks')
      .select('id')
      .where('server_id', '=', serverId)
      .orderBy('created_at_ms', 'desc')
      .orderBy('id', 'desc')
      .offset(DEBUG_CALLBACKS_KEPT)
      .limit(1_000)
      .execute();
    if (stale.length > 0)
      await this.db
        .deleteFrom('fasp_debug_callbacks')
        .where(
          'id',
          'in',
          stale.map((row) => row.id),
        )
        .execute();
    return id;
  }

  /** Calls the server back with the logged body and records the status it answered. */
  async callBack(serverId: string, callbackId: string, body: unknown): Promise<number> {
    const answer = await faspRequest(this.servers, serverId, 'POST', '/debug/v0/callback/responses', body, { fetchImpl: this.fetchImpl });
    await this.db.updateTable('fasp_debug_callbacks').set({ callback_status: answer.status }).where('id', '=', callbackId).execute();
    return answer.status;
  }

  /** The server's logged calls, newest first. */
  async list(serverId: string, limit = 20): Promise<DebugCallback[]> {
    const rows = await this.db
      .selectFrom('fasp_debug_callbacks')
      .selectAll()
      .where('server_id', '=', serverId)
      .orderBy('created_at_ms', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      ip: row.ip,
      body: row.body,
      callbackStatus: row.callback_status === null ? null : Number(row.callback_status),
      createdAtMs: Number(row.created_at_ms),
    }));
  }
}

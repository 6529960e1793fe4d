/**
 * PostgreSQL's DatabaseHandle.withExclusiveLock: a session-level advisory lock
 * (pg_try_advisory_lock, never waiting) held for the length of the work, so that work such
 * as a cluster agent's run happens on one instance at a time, whichever instances share
 * the database.
 *
 * The locks live on one connection of their own, outside the pool (opened at the first
 * lock, reopened after a loss): a long run holds no pooled connection, and a pool of one
 * cannot deadlock with the work it protects. Advisory locks are per database, so the key
 * hashes the schema with the name: deployments (and test suites) in other schemas of the
 * same database do not exclude each other.
 *
 * If that connection is lost during a run, the server releases the lock with the session
 * and another instance may start the same work before this run ends: the work protected
 * must stay correct (if wasteful) when it runs twice, as every cluster agent does.
 */
import { createHash } from 'node:crypto';
import type { Client, ClientConfig } from 'pg';
import type { ExclusiveLock } from './database-handle.js';
import { exclusiveLock, type OuterLock } from './exclusive-lock.js';

type Pg = typeof import('pg');

export interface AdvisoryLocks {
  lock: ExclusiveLock;
  /** Closes the lock connection (releasing whatever it holds). */
  close(): Promise<void>;
}

interface Session {
  client: Client;
  schema: string;
}

/** The 64-bit advisory lock key of `name` in `schema` (as PostgreSQL's bigint, in decimal). */
export function advisoryLockKey(schema: string, name: string): string {
  return createHash('sha256').update(`recsvc:${schema}:${name}`).digest().readBigInt64BE(0).toString();
}

/** Advisory locks over a connection opened with `config` when first needed. */
export function postgresAdvisoryLocks(pg: Pg, config: ClientConfig): AdvisoryLocks {
  let session: Promise<Session> | undefined;
  let closed = false;

  const open = (): Promise<Session> => {
    if (closed) return Promise.reject(new Error('the database handle is closed'));
    if (session) return session;
    const client = new pg.Client({ ...config, keepAlive: true });
    const opening = client.connect().then(async () => {
      const { rows } = await client.query<{ schema: string }>('SELECT current_schema() AS schema');
      return { client, schema: rows[0]?.schema ?? 'public' };
    });
    // A lost connection (its locks released by the server) is replaced at the next lock.
    const drop = (): void => {
      if (session === opening) session = undefined;
      client.removeAllListeners();
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
    };
    client.on('error', drop);
    client.on('end', drop);
    opening.catch(drop);
    session = opening;
    return opening;
  };

  const advisory: OuterLock = async (name) => {
    const { client, schema } = await open();
    const key = advisoryLockKey(schema, name);
    const { rows } = await client.query<{ granted: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS granted', [key]);
    if (rows[0]?.granted !== true) return `${name} is held by another instance (PostgreSQL advisory lock ${key})`;
    return {
      release: async () => {
        // A lost connection already released it (with its session).
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).catch(() => undefined);
      },
    };
  };

  return {
    lock: exclusiveLock(advisory),
    close: async () => {
      closed = true;
      const current = session;
      session = undefined;
      const opened = await current?.catch(() => undefined);
      if (opened) {
        opened.client.removeAllListeners();
        opened.client.on('error', () => undefined);
        await opened.client.end().catch(() => undefined);
      }
    },
  };
}

/**
 * The servers this service is a FASP provider for: their keys (this service's private key
 * unsealed only to sign), and the capabilities each has enabled. A capability a server has
 * not enabled is never served to it.
 */
import type { KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import { keyFingerprint, privateKeyFromDer, publicKeyFromRaw } from '../../src/fasp/index.js';
import type { Database } from '../platform/db/database.js';
import { unseal } from './fasp-keys.js';
import * as repo from './fasp.repository.js';

/** A registered server, as the CLI and the routes see it (no key material beyond public keys). */
export interface FaspServer {
  /** The id this service gave the server (its `keyid`). */
  readonly id: string;
  readonly baseUrl: string;
  readonly name: string;
  /** The id the server gave this service (this service's `keyid`). */
  readonly faspId: string;
  /** This service's public key for the server, raw, base64. */
  readonly publicKey: string;
  /** What the server's admin compares: base64 of SHA-256 of this service's raw public key. */
  readonly fingerprint: string;
  readonly serverPublicKey: string;
  readonly serverFingerprint: string;
  /** `"<id>/<major version>"`, sorted. */
  readonly capabilities: readonly string[];
  readonly createdAtMs: number;
}

function toServer(row: repo.FaspServerRow): FaspServer {
  const parsed: unknown = JSON.parse(row.capabilities);
  return {
    id: row.id,
    baseUrl: row.base_url,
    name: row.name,
    faspId: row.fasp_id,
    publicKey: row.public_key,
    fingerprint: keyFingerprint(Buffer.from(row.public_key, 'base64')),
    serverPublicKey: row.server_public_key,
    serverFingerprint: keyFingerprint(Buffer.from(row.server_public_key, 'base64')),
    capabilities: Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === 'string').sort() : [],
    createdAtMs: Number(row.created_at_ms),
  };
}

export class FaspService {
  constructor(
    private readonly db: Kysely<Database>,
    /** The FASP key that seals the private keys (server/fasp/fasp-keys.ts). */
    private readonly faspKey: Buffer,
  ) {}

  /** Every registered server. */
  async list(): Promise<FaspServer[]> {
    return (await repo.listFaspServers(this.db)).map(toServer);
  }

  /** The server registered under `id`. */
  async find(id: string): Promise<FaspServer | undefined> {
    const row = await repo.findFaspServer(this.db, id);
    return row === undefined ? undefined : toServer(row);
  }

  /** Forgets a registration; whether there was one. */
  async remove(id: string): Promise<boolean> {
    return repo.deleteFaspServer(this.db, id);
  }

  /** The server's public key, to verify its requests by (undefined: no such server). */
  async serverKey(id: string): Promise<KeyObject | undefined> {
    const row = await repo.findFaspServer(this.db, id);
    return row === undefined ? undefined : publicKeyFromRaw(row.server_public_key);
  }

  /** This service's private key for the server registered under `id`. */
  async signingKey(id: string): Promise<KeyObject | undefined> {
    const row = await repo.findFaspServer(this.db, id);
    return row === undefined ? undefined : privateKeyFromDer(unseal(this.faspKey, row.private_key_sealed));
  }

  /** Enables or disables `capability` (`"<id>/<major>"`) for the server; whether that changed anything. */
  async setCapability(id: string, capability: string, enabled: boolean): Promise<boolean> {
    const server = await this.find(id);
    if (server === undefined) return false;
    const set = new Set(server.capabilities);
    if (set.has(capability) === enabled) return false;
    if (enabled) set.add(capability);
    else set.delete(capability);
    await repo.updateFaspCapabilities(this.db, id, JSON.stringify([...set].sort()));
    return true;
  }

  /** Stores a completed registration. */
  async store(row: repo.FaspServerRow): Promise<FaspServer> {
    await repo.insertFaspServer(this.db, row);
    return toServer(row);
  }
}

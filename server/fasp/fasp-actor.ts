/**
 * This service's ActivityPub actor for data sharing's fetches (discovery/data_sharing v0.1,
 * "Retrieving Content From Its Origin"): an `Application` at `{FASP base}/actor` whose key
 * signs every fetch (the `keyId` is `{actor}#main-key`). The key pair is RSA 2048, since
 * fediverse servers verify actors' keys as RSA; it is separate from the registrations' Ed25519
 * keys, made on first use, and its private key is sealed under the FASP key (fasp-keys.ts).
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { seal, unseal } from './fasp-keys.js';

export const ACTOR_USERNAME = 'fasp';

export interface ActorKey {
  readonly privateKey: KeyObject;
  readonly publicKeyPem: string;
}

export class FaspActor {
  private key: Promise<ActorKey> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly faspKey: Buffer,
  ) {}

  /** The actor's key pair, made and stored on first use. */
  keyPair(): Promise<ActorKey> {
    this.key ??= this.load().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }

  private async load(): Promise<ActorKey> {
    const stored = await this.db.selectFrom('fasp_actor').selectAll().where('id', '=', 1).executeTakeFirst();
    if (stored !== undefined) {
      const der = unseal(this.faspKey, stored.private_key_sealed);
      return { privateKey: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }), publicKeyPem: stored.public_key_pem };
    }
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const der = pair.privateKey.export({ format: 'der', type: 'pkcs8' });
    const publicKeyPem = pair.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    await this.db
      .insertInto('fasp_actor')
      .values({ id: 1, private_key_sealed: seal(this.faspKey, der), public_key_pem: publicKeyPem, created_at_ms: Date.now() })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    // Another process may have stored one first: the stored one is the key.
    const row = await this.db.selectFrom('fasp_actor').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    return {
      privateKey: createPrivateKey({ key: unseal(this.faspKey, row.private_key_sealed), format: 'der', type: 'pkcs8' }),
      publicKeyPem: row.public_key_pem,
    };
  }

  /** The actor document served at `{faspBase}/actor`. */
  async document(faspBase: string): Promise<Record<string, unknown>> {
    const { publicKeyPem } = await this.keyPair();
    const id = `${faspBase}/actor`;
    return {
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
      id,
      type: 'Application',
      inbox: `${faspBase}/actor/inbox`,
      outbox: `${faspBase}/actor/outbox`,
      preferredUsername: ACTOR_USERNAME,
      publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
    };
  }
}

/**
 * Which statuses a timeline page stored lately, and exactly as what: a bounded LRU of status id
 * → fingerprint (SHA-256 of the status JSON as the instance sent it, which is what ingest keeps
 * beside the columns). A page re-read with the same statuses stores nothing again; a status that
 * changed in any way (edited, new counts, an account that now opts out, another reader's
 * `favourited`) has a new fingerprint and is stored again.
 *
 * In memory and per process, forgotten after FINGERPRINT_TTL_MS: a post deleted from the store by
 * another path comes back from the next page that shows it at the latest that long after.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** Statuses remembered as stored (least recently seen forgotten first). */
export const STORED_STATUSES_REMEMBERED = 50_000;
/** How long a stored status is trusted to be in the store unchanged. */
export const FINGERPRINT_TTL_MS = 10 * 60_000;

/** The fingerprint of a status' JSON text. */
export function statusFingerprint(json: string): string {
  return createHash('sha256').update(json).digest('base64');
}

export class StoredStatuses {
  private readonly fingerprints = new LRUCache<string, string>({ max: STORED_STATUSES_REMEMBERED, ttl: FINGERPRINT_TTL_MS });

  /** The status was stored (or is being stored) as exactly this. */
  isStored(id: string, fingerprint: string): boolean {
    return this.fingerprints.get(id) === fingerprint;
  }

  /** Called before the write, so that concurrent pages do not write the same statuses again. */
  storing(id: string, fingerprint: string): void {
    this.fingerprints.set(id, fingerprint);
  }

  /** The write failed: the next page showing the status stores it again. */
  failed(id: string, fingerprint: string): void {
    if (this.fingerprints.peek(id) === fingerprint) this.fingerprints.delete(id);
  }
}

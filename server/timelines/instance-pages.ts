/**
 * An instance's timeline page as the blending needs it, from its bytes: each status parsed,
 * serialised with `is_recommendation: false` for the reply, and fingerprinted (./stored-statuses.ts).
 * Pages are kept with their bytes (a page is reused only for the same bytes), bounded by size and briefly: a page re-read
 * unchanged (a client refreshing, several clients of one user) is parsed, serialised and
 * fingerprinted once. What a kept page holds is shared by every reply built from it: never
 * changed.
 */
import { LRUCache } from 'lru-cache';
import { statusFingerprint } from './stored-statuses.js';
import { CANDIDATE_CONSENT, consentsToDiscovery, PageKeys, type StatusJson } from '../../src/mastodon/timeline-consent.js';

/** Bytes of instance pages kept (their parsed form counts four times its bytes). */
export const KEPT_PAGE_BYTES = 32 * 1024 * 1024;
export const KEPT_PAGE_TTL_MS = 60_000;

/** A status of the instance's page. */
export interface UpstreamStatus {
  /** As the instance sent it (shared: never changed). */
  readonly status: StatusJson;
  /** As the reply sends it: the status with `is_recommendation: false`, and its JSON as UTF-8 bytes (a reply is their concatenation). */
  readonly real: StatusJson;
  readonly realBytes: Buffer;
  /** Of the JSON as sent: what ingest keeps. */
  readonly fingerprint: string;
  /** Its authors let it be stored and recommended (consentsToDiscovery; sensitive ones too: the ranking applies each user's preference). */
  readonly consents: boolean;
}

/** A page's statuses (objects only) and their ids and URIs (copy before adding to them). */
export interface ParsedPage {
  readonly statuses: readonly UpstreamStatus[];
  readonly keys: PageKeys;
}

export class InstancePages {
  /** By length and a sample of the bytes; the bytes are compared in full before a kept page is used. */
  private readonly pages = new LRUCache<string, { bytes: Buffer; page: ParsedPage | undefined }>({
    maxSize: KEPT_PAGE_BYTES,
    sizeCalculation: (value) => Math.max(1, value.bytes.length * 4),
    ttl: KEPT_PAGE_TTL_MS,
  });

  /** The page these bytes hold, or undefined when they are JSON but not an array; throws a SyntaxError when not JSON. */
  parse(bytes: Buffer): ParsedPage | undefined {
    const key = sampleKey(bytes);
    const kept = this.pages.get(key);
    if (kept !== undefined && kept.bytes.equals(bytes)) return kept.page;
    const page = parsePage(bytes);
    this.pages.set(key, { bytes, page });
    return page;
  }
}

/** The length and an FNV-1a hash of every 61st byte: cheap, and only a hint (the bytes are compared). */
function sampleKey(bytes: Buffer): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i += 61) hash = Math.imul(hash ^ (bytes[i] ?? 0), 0x01000193);
  return `${bytes.length}:${hash >>> 0}`;
}

function parsePage(bytes: Buffer): ParsedPage | undefined {
  const body: unknown = bytes.length === 0 ? null : JSON.parse(bytes.toString('utf8'));
  if (!Array.isArray(body)) return undefined;
  const statuses: UpstreamStatus[] = [];
  for (const item of body as unknown[]) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const status = item as StatusJson;
    const json = JSON.stringify(status);
    statuses.push({
      status,
      real: { ...status, is_recommendation: false },
      realBytes: Buffer.from(realStatusJson(status, json), 'utf8'),
      fingerprint: statusFingerprint(json),
      consents: consentsToDiscovery(status, CANDIDATE_CONSENT),
    });
  }
  return { statuses, keys: new PageKeys(statuses.map((item) => item.status)) };
}

/** A real status' JSON with `is_recommendation: false` (a field the instance sent is replaced, in place). */
function realStatusJson(status: StatusJson, json: string): string {
  if (Object.hasOwn(status, 'is_recommendation')) return JSON.stringify({ ...status, is_recommendation: false });
  return json === '{}' ? '{"is_recommendation":false}' : `${json.slice(0, -1)},"is_recommendation":false}`;
}

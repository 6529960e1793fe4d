/**
 * An instance's timeline page as the blending needs it, from its bytes: each status parsed,
 * serialised with `is_recommendation: false` for the reply, and fingerprinted (./stored-statuses.ts).
 * Pages are kept by the SHA-256 of their bytes, bounded by size and briefly: a page re-read
 * unchanged (a client refreshing, several clients of one user) is parsed, serialised and
 * fingerprinted once. What a kept page holds is shared by every reply built from it: never
 * changed.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { statusFingerprint } from './stored-statuses.js';
import type { StatusJson } from './timeline-consent.js';

/** Bytes of instance pages kept (their parsed form counts four times its bytes). */
export const KEPT_PAGE_BYTES = 32 * 1024 * 1024;
export const KEPT_PAGE_TTL_MS = 60_000;

/** A status of the instance's page. */
export interface UpstreamStatus {
  /** As the instance sent it (shared: never changed). */
  readonly status: StatusJson;
  /** As the reply sends it: the status with `is_recommendation: false`, and its JSON. */
  readonly real: StatusJson;
  readonly realJson: string;
  /** Of the JSON as sent: what ingest keeps. */
  readonly fingerprint: string;
}

/** A page's statuses (objects only), or undefined when the bytes are JSON but not an array. */
export type ParsedPage = readonly UpstreamStatus[] | undefined;

export class InstancePages {
  private readonly pages = new LRUCache<string, { statuses: ParsedPage }>({
    maxSize: KEPT_PAGE_BYTES,
    sizeCalculation: (_value, key) => Math.max(1, Number(key.slice(0, key.indexOf(':'))) * 4),
    ttl: KEPT_PAGE_TTL_MS,
  });

  /** The page these bytes hold; throws a SyntaxError when they are not JSON. */
  parse(bytes: Buffer): ParsedPage {
    const key = `${bytes.length}:${createHash('sha256').update(bytes).digest('base64')}`;
    const kept = this.pages.get(key);
    if (kept !== undefined) return kept.statuses;
    const statuses = parsePage(bytes);
    this.pages.set(key, { statuses });
    return statuses;
  }
}

function parsePage(bytes: Buffer): ParsedPage {
  const body: unknown = bytes.length === 0 ? null : JSON.parse(bytes.toString('utf8'));
  if (!Array.isArray(body)) return undefined;
  const out: UpstreamStatus[] = [];
  for (const item of body as unknown[]) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const status = item as StatusJson;
    const json = JSON.stringify(status);
    out.push({
      status,
      real: { ...status, is_recommendation: false },
      realJson: realStatusJson(status, json),
      fingerprint: statusFingerprint(json),
    });
  }
  return out;
}

/** A real status' JSON with `is_recommendation: false` (a field the instance sent is replaced, in place). */
function realStatusJson(status: StatusJson, json: string): string {
  if (Object.hasOwn(status, 'is_recommendation')) return JSON.stringify({ ...status, is_recommendation: false });
  return json === '{}' ? '{"is_recommendation":false}' : `${json.slice(0, -1)},"is_recommendation":false}`;
}

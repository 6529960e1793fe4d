/**
 * Puts recommendation reasons into the reader's language at the wire. The ranker, the
 * ranked-list cache and the status-JSON cache all hold English only; the responses of the
 * routes that carry reasons (recommendations, seamless, blended timelines) are rewritten
 * here, after serialisation, when the language is not English: `recommendation_reason`,
 * `recommendation_metadata.reason_string` and a seamless item's `reason`. So no cache can
 * serve one language to another, and an English response costs nothing extra.
 *
 * The language: the user's `reason_language` setting, else `Accept-Language`, else
 * English (src/ranking/reason-language.ts). The user is the one whose data the request
 * was admitted to (`user_id`), else the token's own. Every such response says
 * `Content-Language` and `Vary: Accept-Language`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { localiseReasonText, type ReasonLanguage } from '../../src/ranking/reason-text.js';
import { addVary, decodeBody, encodeBody, encodingOf } from '../platform/http/content-encoding.js';

/** Routes whose responses carry reasons: these exactly, and every route under the timelines. */
export const REASON_ROUTES: ReadonlySet<string> = new Set(['/api/v1/recommendations', '/api/v1/recommendations/seamless']);
const REASON_ROUTE_PREFIX = '/api/v1/timelines/';

/** Nesting looked into (a timeline page is an array of statuses with one level of metadata). */
const MAX_DEPTH = 6;

export type ReasonLanguageOf = (userId: string | undefined, acceptLanguage: string | undefined) => Promise<ReasonLanguage>;

/** Adds the onSend hook that localises reasons (on the instance it is given, i.e. every route when that is the root). */
export function addReasonLocaliser(app: FastifyInstance, languageOf: ReasonLanguageOf): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!carriesReasons(request) || reply.statusCode !== 200) return payload;
    const language = await languageOf(readerOf(request), request.headers['accept-language']);
    reply.header('content-language', language);
    addVary(reply, 'Accept-Language');
    // Bodies are JSON text or its UTF-8 bytes (the timelines send bytes), gzipped when the
    // client asked for it (a recommendation page): unzipped, localised and zipped again.
    if (language === 'en' || !(typeof payload === 'string' || Buffer.isBuffer(payload))) return payload;
    const encoding = encodingOf(reply);
    const json = typeof payload === 'string' ? payload : decodeBody(payload, encoding).toString('utf8');
    if (!json.includes('reason')) return payload;
    const localised = localiseJson(json, language);
    return encoding === 'identity' ? localised : encodeBody(Buffer.from(localised), encoding);
  });
}

/** The JSON text with every reason in it put into `language` (text that is not JSON is returned as it is). */
export function localiseJson(json: string, language: ReasonLanguage): string {
  let body: unknown;
  try {
    body = JSON.parse(json);
  } catch {
    return json;
  }
  localise(body, language, 0);
  return JSON.stringify(body);
}

function localise(value: unknown, language: ReasonLanguage, depth: number): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) localise(item, language, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  if (typeof record.recommendation_reason === 'string') {
    record.recommendation_reason = localiseReasonText(record.recommendation_reason, language);
  }
  if (typeof record.reason_string === 'string') record.reason_string = localiseReasonText(record.reason_string, language);
  // A seamless recommendation: `reason` beside `insertion_point` (a status has no `reason`).
  if (typeof record.reason === 'string' && 'insertion_point' in record) record.reason = localiseReasonText(record.reason, language);
  for (const child of Object.values(record)) if (typeof child === 'object') localise(child, language, depth + 1);
}

function carriesReasons(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  return url !== undefined && (REASON_ROUTES.has(url) || url.startsWith(REASON_ROUTE_PREFIX));
}

function readerOf(request: FastifyRequest): string | undefined {
  if (request.accessUserId !== undefined) return request.accessUserId;
  const identity = request.identity;
  return identity.kind === 'anonymous' ? undefined : (identity.userId ?? undefined);
}

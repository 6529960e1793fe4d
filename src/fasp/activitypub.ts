/**
 * Data sharing's consent rules over the ActivityPub objects a provider fetches from their
 * origin (discovery/data_sharing v0.1, "Restrictions On Content Being Shared"), and their
 * conversion to the Mastodon shapes the service stores:
 * - a post is kept only when `to` names the Public collection (Public only in `cc` is
 *   Mastodon's unlisted: never), its author is on the post's own host, and the author opted
 *   in to being indexed (FEP-5feb `indexable: true`; absent is no);
 * - an account is kept only when it says `discoverable: true`;
 * - neither when the author's bio says `#nobot` or `#noindex`.
 */

export const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const PUBLIC_NAMES = new Set([AS_PUBLIC, 'as:Public', 'Public']);
const ACTOR_TYPES = new Set(['Person', 'Service', 'Application', 'Group', 'Organization']);
const POST_TYPES = new Set(['Note', 'Article', 'Question', 'Page']);
const OPT_OUT_TAG = /#\s*no(?:bot|index)\b/i;

export type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown): unknown[] {
  return value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
}

/** The id of a link-or-object value (a string, or an object's `id`). */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.id === 'string') return value.id;
  return undefined;
}

/** The lowercase host of a URL ('' when it is not an http(s) URL). */
export function hostOf(url: string | undefined): string {
  if (url === undefined) return '';
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.host.toLowerCase() : '';
  } catch {
    return '';
  }
}

/** Whether the object's `to` names the Public collection. */
export function addressedToPublic(object: JsonObject): boolean {
  return list(object.to).some((entry) => {
    const id = idOf(entry);
    return id !== undefined && PUBLIC_NAMES.has(id);
  });
}

/** Whether `object` is an actor (Person, Service, ...). */
export function isActor(object: JsonObject): boolean {
  return list(object.type).some((type) => typeof type === 'string' && ACTOR_TYPES.has(type));
}

/** Whether `object` is a post (Note, Article, Question, Page). */
export function isPost(object: JsonObject): boolean {
  return list(object.type).some((type) => typeof type === 'string' && POST_TYPES.has(type));
}

/** The actor a post is attributed to (the first id). */
export function authorOf(post: JsonObject): string | undefined {
  for (const entry of list(post.attributedTo)) {
    const id = idOf(entry);
    if (id !== undefined) return id;
  }
  return undefined;
}

function bioOptsOut(actor: JsonObject): boolean {
  return typeof actor.summary === 'string' && OPT_OUT_TAG.test(actor.summary.replace(/<[^>]*>/g, ''));
}

/** The account may be stored and found: an actor saying `discoverable: true`, without `#nobot` / `#noindex`. */
export function actorConsentsToDiscovery(actor: JsonObject): boolean {
  return isActor(actor) && actor.discoverable === true && !bioOptsOut(actor);
}

/** The actor's posts may be stored and indexed: FEP-5feb `indexable: true`, without `#nobot` / `#noindex`. */
export function actorConsentsToIndexing(actor: JsonObject): boolean {
  return isActor(actor) && actor.indexable === true && !bioOptsOut(actor);
}

/** The post, fetched from `uri`, may be stored given its fetched author: see the file's comment. */
export function postConsents(uri: string, post: JsonObject, author: JsonObject): boolean {
  if (!isPost(post) || post.id !== uri || !addressedToPublic(post)) return false;
  const authorId = authorOf(post);
  if (authorId === undefined || authorId !== author.id || hostOf(authorId) !== hostOf(uri)) return false;
  return actorConsentsToIndexing(author);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function urlOf(value: unknown): string | undefined {
  for (const entry of list(value)) {
    if (typeof entry === 'string') return entry;
    if (isObject(entry) && typeof entry.href === 'string') return entry.href;
    if (isObject(entry) && typeof entry.url === 'string') return entry.url;
  }
  return undefined;
}

/** The account fields of a Mastodon Account for an actor (its id at the origin is its URI). */
export function actorToAccount(actor: JsonObject): JsonObject {
  const uri = String(actor.id);
  const host = hostOf(uri);
  const username = text(actor.preferredUsername) ?? uri.split('/').pop() ?? 'unknown';
  const avatar = urlOf(actor.icon);
  const header = urlOf(actor.image);
  return {
    id: uri,
    username,
    acct: `${username}@${host}`,
    display_name: text(actor.name) ?? username,
    note: text(actor.summary) ?? '',
    url: urlOf(actor.url) ?? uri,
    uri,
    ...(avatar === undefined ? {} : { avatar }),
    ...(header === undefined ? {} : { header }),
    bot: list(actor.type).includes('Service') || list(actor.type).includes('Application'),
    group: list(actor.type).includes('Group'),
    locked: actor.manuallyApprovesFollowers === true,
    discoverable: actor.discoverable === true,
    indexable: actor.indexable === true,
    memorial: actor.memorial === true,
    created_at: text(actor.published) ?? new Date(0).toISOString(),
  };
}

/** The Mastodon Status of a consenting post and its author (its id at the origin is its URI). */
export function postToStatus(post: JsonObject, author: JsonObject): JsonObject {
  const uri = String(post.id);
  const contentMap = isObject(post.contentMap) ? post.contentMap : undefined;
  const language = contentMap === undefined ? null : (Object.keys(contentMap)[0] ?? null);
  const tags = list(post.tag)
    .filter((tag): tag is JsonObject => isObject(tag) && tag.type === 'Hashtag' && typeof tag.name === 'string')
    .map((tag) => ({ name: String(tag.name).replace(/^#/, ''), url: text(tag.href) ?? '' }));
  return {
    id: uri,
    uri,
    url: urlOf(post.url) ?? uri,
    created_at: text(post.published) ?? new Date().toISOString(),
    account: actorToAccount(author),
    content: text(post.content) ?? (contentMap === undefined ? '' : (text(Object.values(contentMap)[0]) ?? '')),
    visibility: 'public',
    sensitive: post.sensitive === true,
    spoiler_text: text(post.summary) ?? '',
    language,
    tags,
    in_reply_to_id: null,
    in_reply_to_account_id: null,
  };
}

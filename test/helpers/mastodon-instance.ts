/**
 * A small Mastodon-compatible instance for tests: fastify on 127.0.0.1, port 0, plain
 * HTTP (the service reaches it with RECSVC_ALLOW_INSECURE_INSTANCES=1 and
 * `X-Social-Instance: <instance.host>`).
 *
 * It speaks enough of Mastodon 4.5's API, with its real shapes, for masto.js and
 * megalodon to decode what it sends: verify_credentials, apps, OAuth authorize (approves
 * at once as `authorizingAccount`) and token (PKCE S256), home/public/tag timelines with
 * Mastodon's paging (max_id, since_id, min_id, limit; Link with absolute next/prev URLs;
 * snowflake ids), one status, one account, relationships, search (resolving peers' statuses: `federate`),
 * favourite/reblog/bookmark and their undo, v1/v2 instance,
 * X-RateLimit-* headers. Faults on demand (`fault`): a status (401 for one token, 500),
 * slow or hanging answers, a stalled or huge body, a redirect, bad JSON, a dropped socket.
 * Every request is recorded (`count`, `requests`) so tests can prove what reached it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { createRandom, randomInt } from '../../src/random.js';
import type { IdentityProvider } from '../../server/platform/auth/identity-providers.js';
import {
  createSocialServices,
  DEFAULT_SOCIAL_OPTIONS,
  type SocialDependencies,
  type SocialOptions,
  type SocialServices,
} from '../../server/platform/social/social.service.js';

// ---------------------------------------------------------------------------
// Public interface

export type Json = Record<string, unknown>;

export interface SeenRequest {
  readonly method: string;
  /** Path without the query. */
  readonly path: string;
  /** The request target exactly as it arrived (path and raw query). */
  readonly url: string;
  readonly query: URLSearchParams;
  /** The bearer token sent, if any. */
  readonly token: string | undefined;
}

interface FaultMatch {
  /** Exact path or a pattern (matched against the path without query); every path when absent. */
  readonly path?: string | RegExp;
  readonly method?: string;
  /** Only requests with this bearer token. */
  readonly token?: string;
  /** How many requests it hits (default: every one until cleared). */
  readonly times?: number;
}

export type Fault = FaultMatch &
  (
    | { readonly kind: 'status'; readonly status: number; readonly body?: unknown }
    /** Waits before answering normally (headers included). */
    | { readonly kind: 'slow'; readonly delayMs: number }
    /** Never answers (the connection stays open until the instance closes). */
    | { readonly kind: 'hang' }
    /** Sends the headers and the start of a JSON body, then nothing more. */
    | { readonly kind: 'stall-body' }
    /** A 200 JSON array of about `bytes` bytes, with or without Content-Length. */
    | { readonly kind: 'huge'; readonly bytes: number; readonly declareLength?: boolean }
    | { readonly kind: 'redirect'; readonly location: string; readonly status?: number }
    /** A 200 whose body is not JSON. */
    | { readonly kind: 'bad-json' }
    /** Closes the socket without answering. */
    | { readonly kind: 'drop' }
  );

export interface MastodonInstanceOptions {
  /** Original statuses generated (default 150). */
  readonly statuses?: number;
  /** Seed of the generated data (default 11). */
  readonly seed?: number;
  /** "Now" of the generated data: statuses are spread over the three days before it. */
  readonly nowMs?: number;
  /** X-RateLimit-Limit (default 300 per 5 minutes). */
  readonly rateLimit?: number;
}

export interface MastodonTestInstance {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** `127.0.0.1:PORT`, the `X-Social-Instance` value. */
  readonly host: string;
  readonly port: number;
  /** Every account, local and remote; `accounts[0]` (alice) is the default user. */
  readonly accounts: readonly Json[];
  /** A read/write token of alice, issued at start. */
  readonly token: string;
  /** Issues a token for an account (index or id; default alice). */
  issueToken(account?: number | string, scopes?: string): string;
  revokeToken(token: string): void;
  /** The account id a token acts for (undefined for unknown, revoked or app tokens). */
  accountIdOf(token: string): string | undefined;
  /** The account that /oauth/authorize logs in (index or id). */
  setAuthorizingAccount(account: number | string): void;
  /** Adds an original status by an account, created now (or at `createdMs`); returns it as alice sees it. */
  postStatus(options: NewStatus): Json;
  /** A status as `viewer` (account index, default alice) sees it; undefined if unknown. */
  status(id: string, viewer?: number): Json | undefined;
  /** The whole home timeline of an account (default alice), newest first, as it sees it. */
  homeTimeline(viewer?: number): Json[];
  /** The whole public timeline, newest first. */
  publicTimeline(filters?: { local?: boolean; remote?: boolean; onlyMedia?: boolean; tag?: string }): Json[];
  /** Requests seen (optionally only those to a path or pattern, and a method). */
  count(path?: string | RegExp, method?: string): number;
  readonly requests: readonly SeenRequest[];
  /** Forgets the recorded requests. */
  resetCounts(): void;
  fault(fault: Fault): void;
  clearFaults(): void;
  /**
   * Federates with `peer`: `GET /api/v2/search?q=<uri>&resolve=true` finds a public status of the
   * peer by its uri and keeps a copy of it under an id of this instance (as Mastodon does when it
   * fetches a remote status), its author a remote account of the peer's host.
   */
  federate(peer: MastodonTestInstance): void;
  /** A public status of this instance's own by its uri, as nobody in particular sees it. */
  statusByUri(uri: string): Json | undefined;
  close(): Promise<void>;
}

export interface NewStatus {
  /** Author (account index or id; default bob). */
  readonly account?: number | string;
  readonly text?: string;
  readonly tags?: readonly string[];
  readonly visibility?: 'public' | 'unlisted' | 'private' | 'direct';
  readonly media?: boolean;
  readonly sensitive?: boolean;
  readonly language?: string | null;
  readonly createdMs?: number;
}

// ---------------------------------------------------------------------------
// Data

interface AccountData {
  id: string;
  username: string;
  /** A federated copy's account: its origin (`http://host:port`), whose uri and url it keeps. */
  remoteOrigin?: string;
  /** null for local accounts. */
  domain: string | null;
  displayName: string;
  note: string;
  bot: boolean;
  locked: boolean;
  discoverable: boolean | null;
  indexable: boolean;
  createdMs: number;
  follows: Set<string>;
}

interface StatusData {
  id: string;
  /** A federated copy: the origin's uri, url and HTML, kept as fetched. */
  remote?: { uri: string; url: string | null; content: string };
  createdMs: number;
  accountId: string;
  /** Set for reblogs: the original's id. */
  reblogOf: string | null;
  text: string;
  tags: string[];
  visibility: 'public' | 'unlisted' | 'private' | 'direct';
  sensitive: boolean;
  spoiler: string;
  media: boolean;
  language: string | null;
  inReplyTo: string | null;
  card: boolean;
  poll: boolean;
  editedMs: number | null;
  favourites: Set<string>;
  reblogs: Set<string>;
  bookmarks: Set<string>;
  repliesCount: number;
  quotesCount: number;
}

interface TokenData {
  accountId: string | null;
  scopes: string[];
  appId: string | null;
}

interface AppData {
  id: string;
  name: string;
  website: string | null;
  redirectUris: string[];
  scopes: string[];
  clientId: string;
  clientSecret: string;
}

interface CodeData {
  appId: string;
  accountId: string;
  redirectUri: string;
  scopes: string[];
  challenge: string | null;
  expiresMs: number;
}

const ACCOUNT_SPECS: readonly Omit<AccountData, 'id' | 'createdMs' | 'follows'>[] = [
  {
    username: 'alice',
    domain: null,
    displayName: 'Alice',
    note: '<p>Reads everything.</p>',
    bot: false,
    locked: false,
    discoverable: true,
    indexable: true,
  },
  {
    username: 'bob',
    domain: null,
    displayName: 'Bob 🐝',
    note: '<p>Photos and cats.</p>',
    bot: false,
    locked: false,
    discoverable: true,
    indexable: true,
  },
  {
    username: 'carol',
    domain: null,
    displayName: 'Carol',
    note: '<p>Rust, TypeScript, sometimes music.</p>',
    bot: false,
    locked: false,
    discoverable: true,
    indexable: true,
  },
  {
    username: 'dave',
    domain: null,
    displayName: 'Dave',
    note: '<p>Not here to be found.</p>',
    bot: false,
    locked: true,
    discoverable: false,
    indexable: false,
  },
  {
    username: 'erin',
    domain: null,
    displayName: 'Erin',
    note: '<p>Science news. #nobot</p>',
    bot: false,
    locked: false,
    discoverable: true,
    indexable: true,
  },
  {
    username: 'newsbot',
    domain: null,
    displayName: 'News Bot',
    note: '<p>Automated headlines.</p>',
    bot: true,
    locked: false,
    discoverable: true,
    indexable: true,
  },
  {
    username: 'frank',
    domain: 'remote.example',
    displayName: 'Frank',
    note: '<p>Federated photographer.</p>',
    bot: false,
    locked: false,
    discoverable: true,
    indexable: true,
  },
  {
    username: 'grace',
    domain: 'other.example',
    displayName: 'Grace',
    note: '<p>Music and more music.</p>',
    bot: false,
    locked: false,
    discoverable: true,
    indexable: false,
  },
  {
    username: 'heidi',
    domain: 'remote.example',
    displayName: 'Heidi',
    note: '<p>#noindex please</p>',
    bot: false,
    locked: false,
    discoverable: true,
    indexable: true,
  },
  {
    username: 'ivan',
    domain: 'far.example',
    displayName: 'Ivan',
    note: '',
    bot: false,
    locked: false,
    discoverable: null,
    indexable: true,
  },
];

/** Alice follows these (by username). */
const ALICE_FOLLOWS = ['bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi'];
const TAGS = ['fediverse', 'photography', 'cats', 'rust', 'typescript', 'music', 'science', 'news'];
const WORDS =
  'the a quiet morning long walk new release photo of sky with friends notes on reading fast slow open source small web garden coffee train station rain'.split(
    ' ',
  );

/** Sorts Mastodon ids (decimal strings of snowflakes) newest first. */
function compareIdsDesc(a: string, b: string): number {
  return a.length !== b.length ? b.length - a.length : a < b ? 1 : a > b ? -1 : 0;
}

function idGreater(a: string, b: string): boolean {
  return compareIdsDesc(a, b) < 0;
}

/** A Mastodon snowflake: the millisecond timestamp in the upper 48 bits, a sequence below. */
function snowflake(ms: number, sequence: number): string {
  return ((BigInt(ms) << 16n) | BigInt(sequence & 0xffff)).toString();
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

// ---------------------------------------------------------------------------
// The instance

/** Starts a test instance on 127.0.0.1 (port 0). */
export async function startMastodonInstance(options: MastodonInstanceOptions = {}): Promise<MastodonTestInstance> {
  const nowMs = options.nowMs ?? Date.now();
  const random = createRandom(options.seed ?? 11);
  const rateLimit = options.rateLimit ?? 300;
  let origin = 'http://127.0.0.1';
  let host = '127.0.0.1';

  // Accounts, ids as snowflakes of their creation time.
  const accounts: AccountData[] = ACCOUNT_SPECS.map((spec, index) => {
    const createdMs = Date.parse('2022-11-05T00:00:00.000Z') + index * 86_400_000;
    return { ...spec, id: snowflake(createdMs, index), createdMs, follows: new Set<string>() };
  });
  const byUsername = new Map(accounts.map((account) => [account.username, account]));
  const byId = new Map(accounts.map((account) => [account.id, account]));
  const alice = accounts[0] as AccountData;
  for (const name of ALICE_FOLLOWS) alice.follows.add((byUsername.get(name) as AccountData).id);
  (byUsername.get('bob') as AccountData).follows.add(alice.id);

  const accountRef = (ref: number | string | undefined, fallback: AccountData): AccountData => {
    if (ref === undefined) return fallback;
    const found = typeof ref === 'number' ? accounts[ref] : (byId.get(ref) ?? byUsername.get(ref));
    if (!found) throw new Error(`unknown test account ${ref}`);
    return found;
  };

  // Statuses: originals spread over three days, some replies, some reblogs by followed accounts.
  const statuses = new Map<string, StatusData>();
  const total = options.statuses ?? 150;
  const spanMs = 3 * 86_400_000;
  const originals: StatusData[] = [];
  for (let i = 0; i < total; i++) {
    const createdMs = nowMs - spanMs + Math.floor(((i + 1) * spanMs) / (total + 1));
    const author = accounts[1 + randomInt(random, accounts.length - 1)] as AccountData;
    const tags = TAGS.filter(() => random() < 0.18).slice(0, 3);
    const roll = random();
    const visibility = roll < 0.78 ? 'public' : roll < 0.9 ? 'unlisted' : 'private';
    const words = Array.from({ length: 6 + randomInt(random, 12) }, () => WORDS[randomInt(random, WORDS.length)] as string);
    const previous = originals.length > 0 && random() < 0.12 ? originals[randomInt(random, originals.length)] : undefined;
    const status: StatusData = {
      id: snowflake(createdMs, i),
      createdMs,
      accountId: author.id,
      reblogOf: null,
      text: words.join(' '),
      tags,
      visibility,
      sensitive: random() < 0.05,
      spoiler: '',
      media: random() < 0.2,
      language: random() < 0.85 ? 'en' : random() < 0.5 ? 'de' : null,
      inReplyTo: previous?.id ?? null,
      card: random() < 0.08,
      poll: random() < 0.04,
      editedMs: random() < 0.05 ? createdMs + 60_000 : null,
      favourites: new Set(),
      reblogs: new Set(),
      bookmarks: new Set(),
      repliesCount: 0,
      quotesCount: randomInt(random, 3),
    };
    if (status.sensitive) status.spoiler = 'mildly spicy';
    if (previous) previous.repliesCount += 1;
    // Other users' engagement, so counts are not all zero.
    for (const other of accounts.slice(1)) {
      if (other.id !== author.id && random() < 0.15) status.favourites.add(other.id);
    }
    originals.push(status);
    statuses.set(status.id, status);
  }
  let sequence = total;
  for (const original of originals) {
    if (original.visibility !== 'public' || random() >= 0.1) continue;
    const booster = accounts[1 + randomInt(random, 6)] as AccountData;
    if (booster.id === original.accountId) continue;
    const createdMs = Math.min(nowMs - 1_000, original.createdMs + 1_800_000 + randomInt(random, 3_600_000));
    const reblog: StatusData = {
      ...original,
      id: snowflake(createdMs, sequence++),
      createdMs,
      accountId: booster.id,
      reblogOf: original.id,
      tags: [],
      inReplyTo: null,
      card: false,
      poll: false,
      media: false,
      editedMs: null,
      favourites: new Set(),
      reblogs: new Set(),
      bookmarks: new Set(),
      repliesCount: 0,
      quotesCount: 0,
    };
    original.reblogs.add(booster.id);
    statuses.set(reblog.id, reblog);
  }

  const storeStatus = (status: StatusData): void => {
    statuses.set(status.id, status);
    accountCache.clear();
  };
  const removeStatus = (id: string): void => {
    statuses.delete(id);
    accountCache.clear();
  };
  const tokens = new Map<string, TokenData>();
  const apps = new Map<string, AppData>();
  const codes = new Map<string, CodeData>();
  let authorizing = alice;
  const faults: { fault: Fault; left: number }[] = [];
  const requests: SeenRequest[] = [];
  const rateUsed = new Map<string, number>();

  const issueToken = (account: number | string | undefined = undefined, scopes = 'read write follow push'): string => {
    const token = randomBytes(32).toString('base64url');
    tokens.set(token, { accountId: accountRef(account, alice).id, scopes: scopes.split(/\s+/).filter(Boolean), appId: null });
    return token;
  };

  // ---- rendering

  /** Rendered accounts, dropped whenever a status is added or removed (their counts change). */
  const accountCache = new Map<string, Json>();
  const renderAccount = (account: AccountData): Json => {
    const cached = accountCache.get(account.id);
    if (cached) return cached;
    const rendered = renderAccountNow(account);
    accountCache.set(account.id, rendered);
    return rendered;
  };
  const renderAccountNow = (account: AccountData): Json => {
    const local = account.domain === null;
    const base = local ? origin : (account.remoteOrigin ?? `https://${account.domain}`);
    const authored = [...statuses.values()].filter((status) => status.accountId === account.id);
    const last = authored.reduce((max, status) => Math.max(max, status.createdMs), 0);
    return {
      id: account.id,
      username: account.username,
      acct: local ? account.username : `${account.username}@${account.domain}`,
      display_name: account.displayName,
      locked: account.locked,
      bot: account.bot,
      discoverable: account.discoverable,
      indexable: account.indexable,
      group: false,
      created_at: iso(account.createdMs),
      note: account.note,
      url: `${base}/@${account.username}`,
      uri: `${base}/users/${account.username}`,
      avatar: `${base}/system/accounts/avatars/${account.id}/original/avatar.png`,
      avatar_static: `${base}/system/accounts/avatars/${account.id}/original/avatar.png`,
      header: `${origin}/headers/original/missing.png`,
      header_static: `${origin}/headers/original/missing.png`,
      followers_count: accounts.filter((other) => other.follows.has(account.id)).length,
      following_count: account.follows.size,
      statuses_count: authored.length,
      last_status_at: last === 0 ? null : iso(last).slice(0, 10),
      hide_collections: false,
      noindex: !account.indexable,
      emojis: [],
      roles: [],
      fields: local
        ? [
            {
              name: 'Website',
              value: `<a href="https://${account.username}.example" rel="me nofollow noopener" target="_blank">${account.username}.example</a>`,
              verified_at: null,
            },
          ]
        : [],
      feature_approval: { automatic: [], manual: [], current_user: 'denied' },
    };
  };

  const renderCredentialAccount = (account: AccountData): Json => ({
    ...renderAccount(account),
    source: {
      privacy: 'public',
      sensitive: false,
      language: 'en',
      note: account.note.replace(/<[^>]+>/g, ''),
      fields: [],
      follow_requests_count: 0,
      hide_collections: false,
      discoverable: account.discoverable,
      indexable: account.indexable,
      attribution_domains: [],
      quote_policy: 'public',
    },
    role: { id: '-99', name: '', permissions: '0', color: '', highlighted: false },
  });

  const statusUrls = (status: StatusData): { uri: string; url: string } => {
    if (status.remote) return { uri: status.remote.uri, url: status.remote.url ?? status.remote.uri };
    const author = byId.get(status.accountId) as AccountData;
    const base = author.domain === null ? origin : `https://${author.domain}`;
    return status.reblogOf
      ? {
          uri: `${base}/users/${author.username}/statuses/${status.id}/activity`,
          url: `${base}/users/${author.username}/statuses/${status.id}/activity`,
        }
      : { uri: `${base}/users/${author.username}/statuses/${status.id}`, url: `${base}/@${author.username}/${status.id}` };
  };

  const renderStatus = (status: StatusData, viewer: AccountData | null): Json => {
    const author = byId.get(status.accountId) as AccountData;
    const { uri, url } = statusUrls(status);
    const original = status.reblogOf ? statuses.get(status.reblogOf) : undefined;
    const own = viewer?.id === author.id;
    const tagLinks = status.tags.map((tag) => `<a href="${origin}/tags/${tag}" class="mention hashtag" rel="tag">#<span>${tag}</span></a>`);
    const replyTo = status.inReplyTo ? statuses.get(status.inReplyTo) : undefined;
    const replyAuthor = replyTo ? (byId.get(replyTo.accountId) as AccountData) : undefined;
    const mention = replyAuthor
      ? `<span class="h-card" translate="no"><a href="${renderAccount(replyAuthor).url as string}" class="u-url mention">@<span>${replyAuthor.username}</span></a></span> `
      : '';
    return {
      id: status.id,
      created_at: iso(status.createdMs),
      in_reply_to_id: status.inReplyTo,
      in_reply_to_account_id: replyAuthor?.id ?? null,
      sensitive: status.sensitive,
      spoiler_text: status.spoiler,
      visibility: status.visibility,
      language: status.reblogOf ? null : status.language,
      uri,
      url: status.reblogOf ? null : url,
      replies_count: status.repliesCount,
      reblogs_count: status.reblogs.size,
      favourites_count: status.favourites.size,
      quotes_count: status.quotesCount,
      edited_at: status.editedMs === null ? null : iso(status.editedMs),
      favourited: viewer ? status.favourites.has(viewer.id) : false,
      reblogged: viewer ? status.reblogs.has(viewer.id) : false,
      muted: false,
      bookmarked: viewer ? status.bookmarks.has(viewer.id) : false,
      pinned: own ? false : undefined,
      content: status.remote
        ? status.remote.content
        : status.reblogOf
          ? ''
          : `<p>${mention}${escapeHtml(status.text)}${tagLinks.length > 0 ? ` ${tagLinks.join(' ')}` : ''}</p>`,
      filtered: [],
      reblog: original ? renderStatus(original, viewer) : null,
      application: author.domain === null && !status.reblogOf ? { name: 'Web', website: null } : null,
      account: renderAccount(author),
      media_attachments: status.media
        ? [
            {
              id: snowflake(status.createdMs, 0x4000),
              type: 'image',
              url: `${origin}/system/media_attachments/files/${status.id}/original/photo.jpg`,
              preview_url: `${origin}/system/media_attachments/files/${status.id}/small/photo.jpg`,
              remote_url: author.domain === null ? null : `https://${author.domain}/media/${status.id}.jpg`,
              preview_remote_url: null,
              text_url: null,
              meta: {
                original: { width: 1600, height: 1200, size: '1600x1200', aspect: 1.3333333333333333 },
                small: { width: 554, height: 416, size: '554x416', aspect: 1.3317307692307692 },
              },
              description: 'A photo from the test instance',
              blurhash: 'UFBWY[00?b~qIUofxuWB-;WBRjt7xuofWBj[',
            },
          ]
        : [],
      mentions: replyAuthor
        ? [
            {
              id: replyAuthor.id,
              username: replyAuthor.username,
              url: renderAccount(replyAuthor).url,
              acct: renderAccount(replyAuthor).acct,
            },
          ]
        : [],
      tags: status.tags.map((name) => ({ name, url: `${origin}/tags/${name}` })),
      emojis: [],
      quote: null,
      quote_approval: { automatic: ['public'], manual: [], current_user: viewer ? 'automatic' : 'unknown' },
      card: status.card
        ? {
            url: `https://news.example/articles/${status.id}`,
            title: 'An article worth reading',
            description: 'What happened, and why it matters.',
            language: 'en',
            type: 'link',
            author_name: '',
            author_url: '',
            provider_name: 'News Example',
            provider_url: '',
            html: '',
            width: 400,
            height: 200,
            image: null,
            image_description: '',
            embed_url: '',
            blurhash: null,
            published_at: null,
            authors: [],
          }
        : null,
      poll: status.poll
        ? {
            id: snowflake(status.createdMs, 0x8000),
            expires_at: iso(status.createdMs + 86_400_000),
            expired: status.createdMs + 86_400_000 < Date.now(),
            multiple: false,
            votes_count: 3,
            voters_count: 3,
            voted: false,
            own_votes: [],
            options: [
              { title: 'yes', votes_count: 2 },
              { title: 'no', votes_count: 1 },
            ],
            emojis: [],
          }
        : null,
    };
  };

  /** Mastodon leaves out `pinned` for others' statuses and `local_only` everywhere but glitch; drop undefined keys. */
  const clean = (value: Json): Json => JSON.parse(JSON.stringify(value)) as Json;

  const visibleTo = (status: StatusData, viewer: AccountData | null): boolean => {
    if (status.visibility === 'public' || status.visibility === 'unlisted') return true;
    if (!viewer) return false;
    if (status.accountId === viewer.id) return true;
    return status.visibility === 'private' && viewer.follows.has(status.accountId);
  };

  const homeOf = (viewer: AccountData): StatusData[] =>
    [...statuses.values()]
      .filter((status) => (status.accountId === viewer.id || viewer.follows.has(status.accountId)) && status.visibility !== 'direct')
      .filter((status) => visibleTo(status, viewer))
      .sort((a, b) => compareIdsDesc(a.id, b.id));

  const publicOf = (filters: { local?: boolean; remote?: boolean; onlyMedia?: boolean; tag?: string }): StatusData[] =>
    [...statuses.values()]
      .filter((status) => status.reblogOf === null && status.visibility === 'public')
      .filter((status) => {
        const author = byId.get(status.accountId) as AccountData;
        if (filters.local === true && author.domain !== null) return false;
        if (filters.remote === true && author.domain === null) return false;
        if (filters.onlyMedia === true && !status.media) return false;
        if (filters.tag !== undefined && !status.tags.includes(filters.tag.toLowerCase())) return false;
        return true;
      })
      .sort((a, b) => compareIdsDesc(a.id, b.id));

  // ---- HTTP

  const app: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  // Mastodon accepts JSON and form bodies, and POSTs without a body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(Object.assign(new Error('Unexpected token'), { statusCode: 400 }), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const form: Record<string, string | string[]> = {};
    for (const [key, value] of new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))) {
      const name = key.endsWith('[]') ? key.slice(0, -2) : key;
      const existing = form[name];
      if (key.endsWith('[]')) form[name] = [...(Array.isArray(existing) ? existing : existing === undefined ? [] : [existing]), value];
      else form[name] = value;
    }
    done(null, form);
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, _body, done) => done(null, {}));

  const bearer = (request: FastifyRequest): string | undefined => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    return match?.[1];
  };

  // Record, apply faults, rate-limit headers.
  app.addHook('onRequest', async (request, reply) => {
    const url = new URL(request.url, origin);
    const token = bearer(request);
    requests.push({ method: request.method, path: url.pathname, url: request.url, query: url.searchParams, token });
    if (url.pathname.startsWith('/api/')) {
      const who = token ?? request.ip;
      const used = (rateUsed.get(who) ?? 0) + 1;
      rateUsed.set(who, used);
      const windowMs = 300_000;
      reply.header('x-ratelimit-limit', String(rateLimit));
      reply.header('x-ratelimit-remaining', String(Math.max(0, rateLimit - used)));
      reply.header('x-ratelimit-reset', new Date(Math.ceil(Date.now() / windowMs) * windowMs).toISOString());
    }
    const entry = faults.find(({ fault, left }) => left > 0 && matches(fault, request.method, url.pathname, token));
    if (!entry) return;
    entry.left -= 1;
    if (await applyFault(entry.fault, request, reply)) return reply;
    return undefined;
  });

  const unauthorized = (reply: FastifyReply, message = 'The access token is invalid'): FastifyReply =>
    reply
      .code(401)
      .header('www-authenticate', `Bearer realm="Doorkeeper", error="invalid_token", error_description="${message}"`)
      .send({ error: message });

  /** The account of the request's token; `required` answers 401 without one. */
  const viewerOf = (request: FastifyRequest, reply: FastifyReply, required: boolean): AccountData | null | 'answered' => {
    const token = bearer(request);
    if (token === undefined) {
      if (!required) return null;
      unauthorized(reply);
      return 'answered';
    }
    const data = tokens.get(token);
    if (!data) {
      unauthorized(reply);
      return 'answered';
    }
    if (data.accountId === null) {
      if (!required) return null;
      void reply.code(422).send({ error: 'This method requires an authenticated user' });
      return 'answered';
    }
    return byId.get(data.accountId) ?? null;
  };

  const hasWriteScope = (request: FastifyRequest): boolean => {
    const data = tokens.get(bearer(request) ?? '');
    return data !== undefined && data.scopes.some((scope) => scope === 'write' || scope.startsWith('write:'));
  };

  /** Mastodon's paging over a newest-first list, with its Link header. */
  const sendPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    list: StatusData[],
    viewer: AccountData | null,
    permitted: readonly string[],
  ): FastifyReply => {
    const query = new URL(request.url, origin).searchParams;
    const limitText = query.get('limit');
    const limit = limitText === null ? 20 : Math.min(40, Math.max(1, Number.parseInt(limitText, 10) || 0));
    const maxId = query.get('max_id') || null;
    const sinceId = query.get('since_id') || null;
    const minId = query.get('min_id') || null;
    let window = list.filter(
      (status) => (maxId === null || idGreater(maxId, status.id)) && (sinceId === null || idGreater(status.id, sinceId)),
    );
    if (minId !== null) {
      window = window.filter((status) => idGreater(status.id, minId));
      window = window.slice(-limit);
    } else {
      window = window.slice(0, limit);
    }
    const path = new URL(request.url, origin).pathname;
    const keep = new URLSearchParams();
    for (const name of permitted) {
      for (const value of query.getAll(name)) keep.append(name, value);
    }
    const link = (extra: Record<string, string>): string => {
      const params = new URLSearchParams(keep);
      for (const [name, value] of Object.entries(extra)) params.set(name, value);
      return `${origin}${path}?${params.toString()}`;
    };
    const links: string[] = [];
    const first = window[0];
    const last = window[window.length - 1];
    if (last && window.length === limit) links.push(`<${link({ max_id: last.id })}>; rel="next"`);
    if (first) links.push(`<${link({ min_id: first.id })}>; rel="prev"`);
    if (links.length > 0) reply.header('link', links.join(', '));
    return reply.send(window.map((status) => clean(renderStatus(status, viewer))));
  };

  const truthy = (value: string | null): boolean => value === 'true' || value === '1';

  app.get('/api/v1/accounts/verify_credentials', async (request, reply) => {
    const viewer = viewerOf(request, reply, true);
    if (viewer === 'answered') return reply;
    if (viewer === null) return unauthorized(reply);
    return reply.send(renderCredentialAccount(viewer));
  });

  app.get('/api/v1/timelines/home', async (request, reply) => {
    const viewer = viewerOf(request, reply, true);
    if (viewer === 'answered') return reply;
    if (viewer === null) return unauthorized(reply);
    return sendPage(request, reply, homeOf(viewer), viewer, ['local', 'limit']);
  });

  app.get('/api/v1/timelines/public', async (request, reply) => {
    const viewer = viewerOf(request, reply, false);
    if (viewer === 'answered') return reply;
    const query = new URL(request.url, origin).searchParams;
    const list = publicOf({
      local: truthy(query.get('local')),
      remote: truthy(query.get('remote')),
      onlyMedia: truthy(query.get('only_media')),
    });
    return sendPage(request, reply, list, viewer, ['local', 'remote', 'only_media', 'limit']);
  });

  app.get<{ Params: { hashtag: string } }>('/api/v1/timelines/tag/:hashtag', async (request, reply) => {
    const viewer = viewerOf(request, reply, false);
    if (viewer === 'answered') return reply;
    const query = new URL(request.url, origin).searchParams;
    const list = publicOf({
      local: truthy(query.get('local')),
      remote: truthy(query.get('remote')),
      onlyMedia: truthy(query.get('only_media')),
      tag: request.params.hashtag,
    });
    return sendPage(request, reply, list, viewer, ['local', 'remote', 'only_media', 'limit']);
  });

  // ---- federation: search with resolve, as Mastodon's does for a status uri
  const peers: MastodonTestInstance[] = [];
  const ownByUri = (uri: string): StatusData | undefined =>
    [...statuses.values()].find((status) => status.visibility === 'public' && statusUrls(status).uri === uri);
  /** A copy of a peer's public status under an id of this instance (its author a remote account), made once. */
  const fetchRemote = (uri: string): StatusData | undefined => {
    for (const peer of peers) {
      const remote = peer.statusByUri(uri);
      if (remote === undefined) continue;
      const author = remote.account as Json;
      const accountUri = author.uri as string;
      let account = accounts.find((candidate) => candidate.remoteOrigin !== undefined && renderAccount(candidate).uri === accountUri);
      if (account === undefined) {
        const createdMs = Date.parse(author.created_at as string);
        account = {
          id: snowflake(createdMs, sequence++),
          username: author.username as string,
          domain: peer.host,
          remoteOrigin: peer.origin,
          displayName: author.display_name as string,
          note: author.note as string,
          bot: author.bot as boolean,
          locked: author.locked as boolean,
          discoverable: author.discoverable as boolean | null,
          indexable: author.indexable as boolean,
          createdMs,
          follows: new Set(),
        };
        accounts.push(account);
        byId.set(account.id, account);
        byUsername.set(`${account.username}@${peer.host}`, account);
      }
      const createdMs = Date.parse(remote.created_at as string);
      const copy: StatusData = {
        id: snowflake(Date.now(), sequence++),
        remote: { uri, url: remote.url as string | null, content: remote.content as string },
        createdMs,
        accountId: account.id,
        reblogOf: null,
        text: '',
        tags: ((remote.tags as Json[]) ?? []).map((tag) => tag.name as string),
        visibility: 'public',
        sensitive: remote.sensitive as boolean,
        spoiler: remote.spoiler_text as string,
        media: false,
        language: remote.language as string | null,
        inReplyTo: null,
        card: false,
        poll: false,
        editedMs: null,
        favourites: new Set(),
        reblogs: new Set(),
        bookmarks: new Set(),
        repliesCount: 0,
        quotesCount: 0,
      };
      storeStatus(copy);
      return copy;
    }
    return undefined;
  };

  app.get('/api/v1/accounts/relationships', async (request, reply) => {
    const viewer = viewerOf(request, reply, true);
    if (viewer === 'answered') return reply;
    if (viewer === null) return unauthorized(reply);
    const ids = new URL(request.url, origin).searchParams.getAll('id[]');
    return reply.send(
      ids.flatMap((id) => {
        const account = byId.get(id);
        if (!account) return [];
        return [
          {
            id,
            following: viewer.follows.has(id),
            followed_by: account.follows.has(viewer.id),
            showing_reblogs: true,
            notifying: false,
            languages: null,
            blocking: false,
            blocked_by: false,
            muting: false,
            muting_notifications: false,
            requested: false,
            requested_by: false,
            domain_blocking: false,
            endorsed: false,
            note: '',
          },
        ];
      }),
    );
  });

  app.get<{ Params: { id: string } }>('/api/v1/accounts/:id', async (request, reply) => {
    const account = byId.get(request.params.id);
    if (!account) return reply.code(404).send({ error: 'Record not found' });
    return reply.send(renderAccount(account));
  });

  app.get('/api/v2/search', async (request, reply) => {
    const viewer = viewerOf(request, reply, false);
    if (viewer === 'answered') return reply;
    const query = new URL(request.url, origin).searchParams;
    const q = query.get('q') ?? '';
    const resolve = truthy(query.get('resolve'));
    if (resolve && viewer === null) return unauthorized(reply);
    let found = ownByUri(q) ?? [...statuses.values()].find((status) => status.remote?.uri === q);
    if (found === undefined && resolve) found = fetchRemote(q);
    return reply.send({ accounts: [], statuses: found ? [clean(renderStatus(found, viewer))] : [], hashtags: [] });
  });

  app.get<{ Params: { id: string } }>('/api/v1/statuses/:id', async (request, reply) => {
    const viewer = viewerOf(request, reply, false);
    if (viewer === 'answered') return reply;
    const status = statuses.get(request.params.id);
    if (!status || !visibleTo(status, viewer)) return reply.code(404).send({ error: 'Record not found' });
    return reply.send(clean(renderStatus(status, viewer)));
  });

  // Posting, with Mastodon's answer to a reply to a status the viewer cannot see (StatusesController#set_thread).
  app.post<{ Body: { status?: string; in_reply_to_id?: string; visibility?: StatusData['visibility'] } }>(
    '/api/v1/statuses',
    async (request, reply) => {
      const viewer = viewerOf(request, reply, true);
      if (viewer === 'answered') return reply;
      if (viewer === null) return unauthorized(reply);
      if (!hasWriteScope(request)) return reply.code(403).send({ error: 'This action is outside the authorized scopes' });
      const body = request.body ?? {};
      const thread = body.in_reply_to_id === undefined ? undefined : statuses.get(body.in_reply_to_id);
      if (body.in_reply_to_id !== undefined && (!thread || !visibleTo(thread, viewer))) {
        return reply.code(404).send({ error: 'The post you are trying to reply to does not appear to exist.' });
      }
      if (thread) thread.repliesCount += 1;
      const createdMs = Date.now();
      const status: StatusData = {
        id: snowflake(createdMs, sequence++),
        createdMs,
        accountId: viewer.id,
        reblogOf: null,
        text: body.status ?? '',
        tags: [],
        visibility: body.visibility ?? 'public',
        sensitive: false,
        spoiler: '',
        media: false,
        language: 'en',
        inReplyTo: thread?.id ?? null,
        card: false,
        poll: false,
        editedMs: null,
        favourites: new Set(),
        reblogs: new Set(),
        bookmarks: new Set(),
        repliesCount: 0,
        quotesCount: 0,
      };
      storeStatus(status);
      return reply.send(clean(renderStatus(status, viewer)));
    },
  );

  type Action = 'favourite' | 'unfavourite' | 'reblog' | 'unreblog' | 'bookmark' | 'unbookmark';
  for (const action of ['favourite', 'unfavourite', 'reblog', 'unreblog', 'bookmark', 'unbookmark'] as const satisfies readonly Action[]) {
    app.post<{ Params: { id: string } }>(`/api/v1/statuses/:id/${action}`, async (request, reply) => {
      const viewer = viewerOf(request, reply, true);
      if (viewer === 'answered') return reply;
      if (viewer === null) return unauthorized(reply);
      if (!hasWriteScope(request)) return reply.code(403).send({ error: 'This action is outside the authorized scopes' });
      const found = statuses.get(request.params.id);
      if (!found || !visibleTo(found, viewer)) return reply.code(404).send({ error: 'Record not found' });
      // Acting on a reblog acts on its original (as Mastodon does).
      const status: StatusData = (found.reblogOf ? statuses.get(found.reblogOf) : undefined) ?? found;
      switch (action) {
        case 'favourite':
          status.favourites.add(viewer.id);
          break;
        case 'unfavourite':
          status.favourites.delete(viewer.id);
          break;
        case 'bookmark':
          status.bookmarks.add(viewer.id);
          break;
        case 'unbookmark':
          status.bookmarks.delete(viewer.id);
          break;
        case 'reblog': {
          if (status.visibility !== 'public' && status.visibility !== 'unlisted') {
            return reply.code(422).send({ error: 'Validation failed: Reblog of status is not permitted' });
          }
          const existing = [...statuses.values()].find((other) => other.reblogOf === status.id && other.accountId === viewer.id);
          if (existing) return reply.send(clean(renderStatus(existing, viewer)));
          status.reblogs.add(viewer.id);
          const createdMs = Date.now();
          const reblog: StatusData = {
            ...status,
            id: snowflake(createdMs, sequence++),
            createdMs,
            accountId: viewer.id,
            reblogOf: status.id,
            visibility: 'public',
            tags: [],
            inReplyTo: null,
            media: false,
            card: false,
            poll: false,
            editedMs: null,
            favourites: new Set(),
            reblogs: new Set(),
            bookmarks: new Set(),
            repliesCount: 0,
            quotesCount: 0,
          };
          storeStatus(reblog);
          return reply.send(clean(renderStatus(reblog, viewer)));
        }
        case 'unreblog': {
          status.reblogs.delete(viewer.id);
          for (const other of [...statuses.values()]) {
            if (other.reblogOf === status.id && other.accountId === viewer.id) removeStatus(other.id);
          }
          break;
        }
      }
      return reply.send(clean(renderStatus(status, viewer)));
    });
  }

  const instanceConfiguration = (): Json => ({
    urls: { streaming: origin.replace(/^http/, 'ws') },
    vapid: { public_key: 'BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=' },
    accounts: { max_featured_tags: 10, max_pinned_statuses: 5 },
    statuses: { max_characters: 500, max_media_attachments: 4, characters_reserved_per_url: 23 },
    media_attachments: {
      supported_mime_types: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4'],
      description_limit: 1500,
      image_size_limit: 16_777_216,
      image_matrix_limit: 33_177_600,
      video_size_limit: 103_809_024,
      video_frame_rate_limit: 120,
      video_matrix_limit: 8_294_400,
    },
    polls: { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2_629_746 },
    translation: { enabled: false },
  });

  app.get('/api/v2/instance', async () => ({
    domain: host,
    title: 'Test Instance',
    version: '4.5.0',
    source_url: 'https://github.com/mastodon/mastodon',
    description: 'A Mastodon-compatible instance for recsvc tests.',
    usage: { users: { active_month: accounts.filter((account) => account.domain === null).length } },
    thumbnail: { url: `${origin}/packs/media/images/preview.png`, blurhash: null, versions: {} },
    icon: [],
    languages: ['en'],
    configuration: {
      ...instanceConfiguration(),
      urls: {
        streaming: origin.replace(/^http/, 'ws'),
        status: null,
        about: `${origin}/about`,
        privacy_policy: `${origin}/privacy-policy`,
        terms_of_service: null,
      },
    },
    registrations: { enabled: false, approval_required: false, message: null, url: null },
    api_versions: { mastodon: 6 },
    contact: { email: 'admin@test.example', account: renderAccount(alice) },
    rules: [{ id: '1', text: 'Be kind.', hint: '' }],
  }));

  app.get('/api/v1/instance', async () => ({
    uri: host,
    title: 'Test Instance',
    short_description: 'A Mastodon-compatible instance for recsvc tests.',
    description: 'A Mastodon-compatible instance for recsvc tests.',
    email: 'admin@test.example',
    version: '4.5.0',
    urls: { streaming_api: origin.replace(/^http/, 'ws') },
    stats: {
      user_count: accounts.filter((account) => account.domain === null).length,
      status_count: [...statuses.values()].filter((status) => status.reblogOf === null).length,
      domain_count: new Set(accounts.map((account) => account.domain).filter((domain) => domain !== null)).size,
    },
    thumbnail: `${origin}/packs/media/images/preview.png`,
    languages: ['en'],
    registrations: false,
    approval_required: false,
    invites_enabled: false,
    configuration: instanceConfiguration(),
    contact_account: renderAccount(alice),
    rules: [{ id: '1', text: 'Be kind.', hint: '' }],
  }));

  // ---- OAuth (Doorkeeper-shaped)

  const listOf = (value: unknown): string[] =>
    Array.isArray(value)
      ? value.filter((item): item is string => typeof item === 'string')
      : typeof value === 'string'
        ? value.split(/[\n\s]+/).filter(Boolean)
        : [];

  app.post('/api/v1/apps', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const name = typeof body.client_name === 'string' ? body.client_name.trim() : '';
    const redirectUris = listOf(body.redirect_uris);
    if (name === '') return reply.code(422).send({ error: "Validation failed: Application name can't be blank" });
    if (redirectUris.length === 0) return reply.code(422).send({ error: "Validation failed: Redirect URI can't be blank" });
    for (const uri of redirectUris) {
      if (uri !== 'urn:ietf:wg:oauth:2.0:oob' && !URL.canParse(uri)) {
        return reply.code(422).send({ error: 'Validation failed: Redirect URI must be an absolute URI.' });
      }
    }
    const scopes = listOf(body.scopes);
    const data: AppData = {
      id: String(apps.size + 1),
      name,
      website: typeof body.website === 'string' && body.website !== '' ? body.website : null,
      redirectUris,
      scopes: scopes.length > 0 ? scopes : ['read'],
      clientId: randomBytes(32).toString('base64url'),
      clientSecret: randomBytes(32).toString('base64url'),
    };
    apps.set(data.clientId, data);
    return reply.send({
      id: data.id,
      name: data.name,
      website: data.website,
      scopes: data.scopes,
      redirect_uri: data.redirectUris.join('\n'),
      redirect_uris: data.redirectUris,
      vapid_key: 'BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=',
      client_id: data.clientId,
      client_secret: data.clientSecret,
      client_secret_expires_at: 0,
    });
  });

  const oauthError = (reply: FastifyReply, status: number, error: string, description: string): FastifyReply =>
    reply.code(status).send({ error, error_description: description });

  app.get('/oauth/authorize', async (request, reply) => {
    const query = new URL(request.url, origin).searchParams;
    const client = apps.get(query.get('client_id') ?? '');
    if (!client) return oauthError(reply, 401, 'invalid_client', 'Client authentication failed due to unknown client.');
    const redirectUri = query.get('redirect_uri') ?? client.redirectUris[0] ?? '';
    if (!client.redirectUris.includes(redirectUri)) {
      return oauthError(
        reply,
        400,
        'invalid_redirect_uri',
        'The requested redirect uri is malformed or doesn\u2019t match client redirect URI.',
      );
    }
    if (query.get('response_type') !== 'code')
      return oauthError(reply, 400, 'unsupported_response_type', 'The authorization server does not support this response type.');
    const scopes = (query.get('scope') ?? 'read').split(/[\s+]+/).filter(Boolean);
    const method = query.get('code_challenge_method');
    const challenge = query.get('code_challenge');
    if (challenge !== null && method !== 'S256') return oauthError(reply, 400, 'invalid_request', 'Code challenge method must be S256.');
    const code = randomBytes(32).toString('base64url');
    codes.set(code, { appId: client.clientId, accountId: authorizing.id, redirectUri, scopes, challenge, expiresMs: Date.now() + 600_000 });
    if (redirectUri === 'urn:ietf:wg:oauth:2.0:oob') return reply.type('text/html').send(`<p>Authorization code: <code>${code}</code></p>`);
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    const state = query.get('state');
    if (state !== null) target.searchParams.set('state', state);
    return reply.redirect(target.toString(), 302);
  });

  app.post('/oauth/token', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const text = (name: string): string => (typeof body[name] === 'string' ? body[name] : '');
    const client = apps.get(text('client_id'));
    if (!client || client.clientSecret !== text('client_secret')) {
      return oauthError(
        reply,
        401,
        'invalid_client',
        'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
      );
    }
    const grant = text('grant_type');
    let accountId: string | null;
    let scopes: string[];
    if (grant === 'authorization_code') {
      const code = codes.get(text('code'));
      if (code && code.expiresMs < Date.now()) codes.delete(text('code'));
      if (!code || code.appId !== client.clientId || code.expiresMs < Date.now() || code.redirectUri !== text('redirect_uri')) {
        return oauthError(
          reply,
          400,
          'invalid_grant',
          'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
        );
      }
      if (code.challenge !== null) {
        const verifier = createHash('sha256').update(text('code_verifier')).digest('base64url');
        if (verifier !== code.challenge) {
          return oauthError(
            reply,
            400,
            'invalid_grant',
            'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
          );
        }
      }
      codes.delete(text('code'));
      accountId = code.accountId;
      scopes = code.scopes;
    } else if (grant === 'client_credentials') {
      accountId = null;
      scopes = listOf(body.scope).length > 0 ? listOf(body.scope) : ['read'];
    } else {
      return oauthError(reply, 400, 'unsupported_grant_type', 'The authorization grant type is not supported by the authorization server.');
    }
    const token = randomBytes(32).toString('base64url');
    tokens.set(token, { accountId, scopes, appId: client.clientId });
    return reply.send({ access_token: token, token_type: 'Bearer', scope: scopes.join(' '), created_at: Math.floor(Date.now() / 1000) });
  });

  app.post('/oauth/revoke', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const client = apps.get(typeof body.client_id === 'string' ? body.client_id : '');
    if (!client || client.clientSecret !== body.client_secret) {
      return oauthError(reply, 403, 'unauthorized_client', 'You are not authorized to revoke this token');
    }
    if (typeof body.token === 'string') tokens.delete(body.token);
    return reply.send({});
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'Record not found' }));

  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  origin = address;
  const port = Number(new URL(address).port);
  host = `127.0.0.1:${port}`;
  const aliceToken = issueToken();

  return {
    origin,
    host,
    port,
    get accounts() {
      return accounts.map(renderAccount);
    },
    token: aliceToken,
    issueToken,
    revokeToken(token) {
      tokens.delete(token);
    },
    accountIdOf(token) {
      return tokens.get(token)?.accountId ?? undefined;
    },
    setAuthorizingAccount(account) {
      authorizing = accountRef(account, alice);
    },
    federate(peer) {
      peers.push(peer);
    },
    statusByUri(uri) {
      const found = ownByUri(uri);
      return found ? clean(renderStatus(found, null)) : undefined;
    },
    postStatus(spec) {
      const author = accountRef(spec.account, byUsername.get('bob') as AccountData);
      const createdMs = spec.createdMs ?? Date.now();
      const status: StatusData = {
        id: snowflake(createdMs, sequence++),
        createdMs,
        accountId: author.id,
        reblogOf: null,
        text: spec.text ?? 'a fresh post',
        tags: [...(spec.tags ?? [])].map((tag) => tag.toLowerCase()),
        visibility: spec.visibility ?? 'public',
        sensitive: spec.sensitive ?? false,
        spoiler: spec.sensitive === true ? 'content warning' : '',
        media: spec.media ?? false,
        language: spec.language === undefined ? 'en' : spec.language,
        inReplyTo: null,
        card: false,
        poll: false,
        editedMs: null,
        favourites: new Set(),
        reblogs: new Set(),
        bookmarks: new Set(),
        repliesCount: 0,
        quotesCount: 0,
      };
      storeStatus(status);
      return clean(renderStatus(status, alice));
    },
    status(id, viewer = 0) {
      const status = statuses.get(id);
      return status ? clean(renderStatus(status, accounts[viewer] ?? null)) : undefined;
    },
    homeTimeline(viewer = 0) {
      const account = accountRef(viewer, alice);
      return homeOf(account).map((status) => clean(renderStatus(status, account)));
    },
    publicTimeline(filters = {}) {
      return publicOf(filters).map((status) => clean(renderStatus(status, null)));
    },
    count(path, method) {
      return requests.filter(
        (seen) =>
          (path === undefined || (typeof path === 'string' ? seen.path === path : path.test(seen.path))) &&
          (method === undefined || seen.method === method.toUpperCase()),
      ).length;
    },
    requests,
    resetCounts() {
      requests.length = 0;
    },
    fault(fault) {
      faults.push({ fault, left: fault.times ?? Number.POSITIVE_INFINITY });
    },
    clearFaults() {
      faults.length = 0;
    },
    async close() {
      await app.close();
    },
  };
}

function matches(fault: Fault, method: string, path: string, token: string | undefined): boolean {
  if (fault.method !== undefined && fault.method.toUpperCase() !== method) return false;
  if (fault.token !== undefined && fault.token !== token) return false;
  if (fault.path === undefined) return true;
  return typeof fault.path === 'string' ? fault.path === path : fault.path.test(path);
}

/** Applies a fault; true when it answered (or took over) the request, false to go on normally. */
async function applyFault(fault: Fault, request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  switch (fault.kind) {
    case 'status':
      if (fault.status === 401) {
        reply.header(
          'www-authenticate',
          'Bearer realm="Doorkeeper", error="invalid_token", error_description="The access token is invalid"',
        );
      }
      reply
        .code(fault.status)
        .send(fault.body ?? { error: fault.status === 401 ? 'The access token is invalid' : 'Internal server error' });
      return true;
    case 'slow':
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      return false;
    case 'hang':
      reply.hijack();
      return true;
    case 'stall-body':
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      reply.raw.write('[{"id":"1","content":"');
      return true;
    case 'huge':
      reply.hijack();
      void streamHuge(reply, fault.bytes, fault.declareLength === true);
      return true;
    case 'redirect':
      reply
        .code(fault.status ?? 302)
        .header('location', fault.location)
        .send({ error: 'moved' });
      return true;
    case 'bad-json':
      reply.code(200).type('application/json; charset=utf-8').send('{"id": "1", "content": <html>');
      return true;
    case 'drop':
      reply.hijack();
      request.raw.socket.destroy();
      return true;
  }
}

/** Writes a JSON array of about `bytes` bytes in 64 KiB pieces, minding back-pressure and a client that hangs up. */
async function streamHuge(reply: FastifyReply, bytes: number, declareLength: boolean): Promise<void> {
  const raw = reply.raw;
  const item = `{"id":"1","content":"${'x'.repeat(1000)}"},`;
  const count = Math.max(1, Math.ceil(bytes / item.length));
  const length = 1 + item.length * count - 1 + 1;
  raw.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...(declareLength ? { 'content-length': String(length) } : {}) });
  let closed = false;
  raw.on('close', () => {
    closed = true;
  });
  raw.write('[');
  const perChunk = Math.max(1, Math.floor(65_536 / item.length));
  for (let written = 0; written < count && !closed;) {
    const n = Math.min(perChunk, count - written);
    written += n;
    let chunk = item.repeat(n);
    if (written === count) chunk = chunk.slice(0, -1);
    if (!raw.write(chunk)) {
      // Whichever comes first; both listeners go, so long bodies do not pile up 'close' listeners.
      await new Promise<void>((resolve) => {
        const resume = (): void => {
          raw.off('drain', resume);
          raw.off('close', resume);
          resolve();
        };
        raw.on('drain', resume);
        raw.on('close', resume);
      });
    }
  }
  if (!closed) raw.end(']');
}

// ---------------------------------------------------------------------------
// App wiring

/** The social side for tests against the test instance: insecure mode (plain HTTP on 127.0.0.1) and short timeouts. */
export function testSocialServices(options: Partial<SocialOptions> = {}, dependencies: SocialDependencies = {}): SocialServices {
  return createSocialServices(
    {
      ...DEFAULT_SOCIAL_OPTIONS,
      allowInsecure: true,
      connectTimeoutMs: 1_000,
      headersTimeoutMs: 1_000,
      bodyTimeoutMs: 1_000,
      requestTimeoutMs: 3_000,
      ...options,
    },
    dependencies,
  );
}

/**
 * Test-app options that make `social` the app's social side: `social` (the field app.ts
 * takes once the social side is wired in) and, until then, its identity provider as an
 * extra provider after service tokens. Once both are present the provider is asked at
 * most twice per request, the second time from its own cache.
 */
export function withSocial(social: SocialServices): { identityProviders: IdentityProvider[] } {
  return { social, identityProviders: [social.identityProvider] } as { identityProviders: IdentityProvider[] };
}

// ---------------------------------------------------------------------------
// SSRF test support

/** A TCP listener on 127.0.0.1 that counts the connections that reach it (and closes them). */
export interface ConnectionCounter {
  readonly port: number;
  readonly connections: number;
  close(): Promise<void>;
}

export async function startConnectionCounter(): Promise<ConnectionCounter> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `X-Social-Instance` spellings of loopback, private and local hosts (with the port where one fits). */
export function loopbackSpellings(port: number): string[] {
  return [
    `127.0.0.1:${port}`,
    `127.1:${port}`,
    `127.0.1:${port}`,
    `2130706433:${port}`,
    `0x7f000001:${port}`,
    `0x7f.0.0.1:${port}`,
    `0x7f.1:${port}`,
    `0177.0.0.1:${port}`,
    `017700000001:${port}`,
    `１２７.０.０.１:${port}`,
    `127。0。0。1:${port}`,
    `0.0.0.0:${port}`,
    `0:${port}`,
    `[::1]:${port}`,
    '::1',
    `[::ffff:127.0.0.1]:${port}`,
    `[::ffff:7f00:1]:${port}`,
    '::ffff:127.0.0.1',
    `[0:0:0:0:0:0:0:1]:${port}`,
    `[::]:${port}`,
    `localhost:${port}`,
    `localhost.:${port}`,
    `LocalHost:${port}`,
    `foo.localhost:${port}`,
    `10.0.0.1:${port}`,
    `192.168.1.1:${port}`,
    `172.16.0.1:${port}`,
    `169.254.169.254:${port}`,
    `100.100.100.200:${port}`,
    `[fe80::1]:${port}`,
    `[fd00:ec2::254]:${port}`,
    `metadata.google.internal:${port}`,
    `metadata:${port}`,
  ];
}

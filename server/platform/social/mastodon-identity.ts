/**
 * Mastodon tokens as identities (decisions.md, "Identity, tokens, permissions", kind 2).
 * A bearer token that is not one of the service's own is checked against the instance
 * named in `X-Social-Instance`, or the configured default instance, with
 * `GET /api/v1/accounts/verify_credentials`; the account it answers with is the caller.
 *
 * - User id: `<account id>@<instance host>`, the host in its canonical form
 *   (./instance-address.ts: lowercase, punycode, `:port` only when not the default),
 *   e.g. `109354342312345678@mastodon.social`. The same account always gets the same id,
 *   whichever spelling of the instance a client sends.
 * - Scopes `read` and `write` (the user's own data), tier `authenticated`, source
 *   `social`; the rate-limit subject is a hash of the user id, so a user's tokens share limits.
 * - Cached for `cacheTtlMs` (5 minutes) in a bounded LRU keyed by an HMAC of
 *   (instance, token) under a per-process secret; concurrent first requests of one token
 *   share one instance call; tokens the instance refuses are remembered for
 *   `rejectedTtlMs`. The token itself is never stored, logged or put in a message.
 *   With Redis (`useSharedCache`), verified tokens are also shared by every instance for
 *   the same `cacheTtlMs`, under an HMAC key common to the instances; Redis failing only
 *   means asking the instance again.
 * - Revoked at its instance: as soon as the instance answers 401 to any request made with
 *   the token (a timeline, a proxied call: InstanceClient's `onTokenRejected`), the cached
 *   verification is dropped here and in the shared cache, so the next request asks the
 *   instance again instead of trusting the token for the rest of `cacheTtlMs`. Another
 *   process's own copy is not told (docs/federation.md, "Revoked tokens"): it keeps the
 *   token until its entry expires or the instance answers it 401 too.
 * - Outcomes: the instance refuses the token (401, 403, or 422 for an app token with no
 *   user) → the provider does not vouch →
 *   401 `Authentication required`; the instance unreachable, slow, failing or answering
 *   nonsense → 503 `Service unavailable` (thrown, not cached); a header naming an address
 *   the service will not connect to → 400 on `X-Social-Instance`; no instance named and
 *   no default → 401 `Authentication required` naming `X-Social-Instance` in `field`
 *   (SocialInstanceMissingError: the token may well be good, the request does not say where).
 * - Tokens shaped like the service's own (`looksLikeServiceToken`) are never sent to an
 *   instance: an expired or revoked service token must not leak to a third party.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AuthenticatedIdentity, Scope } from '../../../src/auth/identity.js';
import { SOCIAL_ACCOUNT_ID } from '../../../src/auth/user-account.js';
import { MAX_USER_ID_LENGTH } from '../../../src/schemas/common.schema.js';
import { AppError } from '../../../src/errors.js';
import { looksLikeServiceToken } from '../auth/token.service.js';
import { INSTANCE_HEADER, InstanceAddressError, parseInstanceAddress, type InstanceAddress } from './instance-address.js';
import {
  InstanceForbiddenError,
  InstanceNotFoundError,
  InstanceRequestError,
  InstanceTokenRejectedError,
  InstanceUnavailableError,
  type InstanceClient,
  type UnavailableReason,
} from './instance-client.js';

/**
 * The shape of server/platform/auth/identity-providers.ts's IdentityProvider (not imported: feature
 * folders meet through their declared interfaces); app.ts type-checks the match.
 */
export interface SocialTokenProvider {
  readonly name: string;
  resolve(token: string, context: SocialTokenContext): Promise<AuthenticatedIdentity | undefined>;
  outage(token: string, context: SocialTokenContext, error: unknown): SocialTokenOutage | undefined;
}

/** The shape of identity-providers.ts's TokenContext. */
export interface SocialTokenContext {
  readonly socialInstance: string | undefined;
  readonly beforeRemoteCheck?: (() => Promise<void>) | undefined;
}

/** The shape of identity-providers.ts's TokenOutage. */
export interface SocialTokenOutage {
  readonly lastVerified: AuthenticatedIdentity | undefined;
  readonly source: 'social';
}

/**
 * 401 `Authentication required` with `field: X-Social-Instance`: a token that is not the
 * service's own, sent without an instance to check it with (and no default instance).
 */
export class SocialInstanceMissingError extends AppError {
  constructor() {
    super(
      401,
      'Authentication required',
      `This bearer token is not one of the service's own, and no ${INSTANCE_HEADER} header names the Mastodon instance ` +
        'to check it with (no default instance is configured)',
      INSTANCE_HEADER,
    );
  }
}

/** The fields of the instance's account the service keeps (not the whole CredentialAccount). */
export interface SocialAccount {
  readonly id: string;
  readonly username: string;
  readonly acct: string;
  readonly displayName: string;
  readonly url: string | null;
  readonly avatar: string | null;
  readonly bot: boolean;
  readonly locked: boolean;
}

/** A verified token: who it is, where it lives. */
export interface VerifiedSocialToken {
  readonly identity: AuthenticatedIdentity;
  readonly instance: InstanceAddress;
  readonly account: SocialAccount;
}

export interface MastodonIdentityOptions {
  readonly client: InstanceClient;
  /** RECSVC_DEFAULT_INSTANCE: the instance of tokens sent without `X-Social-Instance`. */
  readonly defaultInstance?: string | undefined;
  /** How long a verified token is trusted without asking the instance again. */
  readonly cacheTtlMs?: number;
  /**
   * How long after its verification a token's identity may still be used while its
   * instance is down (by routes that degrade: timelines); at least `cacheTtlMs` to matter.
   */
  readonly staleTtlMs?: number;
  /** After its instance failed to verify a known token, how long before the instance is asked again. */
  readonly outageRetryMs?: number;
  /** How long a refused token is refused without asking again. */
  readonly rejectedTtlMs?: number;
  /** Tokens remembered (verified and refused together). */
  readonly cacheCapacity?: number;
  /** Verifications under way at once, across all tokens; beyond it, 503 at once. */
  readonly maxConcurrentVerifications?: number;
  /**
   * A cache shared by every instance (Redis, server/platform/redis/redis-token-cache.ts): a token
   * verified by one instance is not checked again by the others within `cacheTtlMs`. When
   * it fails, verification goes to the instance as without it.
   */
  readonly shared?: SharedTokenCache;
  readonly now?: () => number;
}

/**
 * Verified tokens shared between instances. Values are the verified account as JSON with
 * the time of its verification; the cache names them by an HMAC of (instance, token), never
 * the token. Failures are the cache's to swallow: `get` answers undefined, `set` gives up.
 */
export interface SharedTokenCache {
  get(instanceHost: string, token: string): Promise<string | undefined>;
  set(instanceHost: string, token: string, value: string, ttlMs: number): Promise<void>;
  /** Forgets one token's entry (its instance answered 401). */
  delete(instanceHost: string, token: string): Promise<void>;
  /** Forgets every shared entry (after a revocation the service learns of). */
  clear(): Promise<void>;
}

export const DEFAULT_MASTODON_IDENTITY_OPTIONS = {
  cacheTtlMs: 5 * 60_000,
  staleTtlMs: 60 * 60_000,
  outageRetryMs: 30_000,
  rejectedTtlMs: 30_000,
  cacheCapacity: 10_000,
  maxConcurrentVerifications: 256,
} as const;

const SOCIAL_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['read', 'write']);
/** RFC 6750's b64token, bounded: anything else is not a bearer token worth sending out. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]{1,1024}=*$/;

/** Instance failures that mean "down" (as opposed to "not a Mastodon API" or "answered nonsense"). */
const OUTAGE_REASONS: ReadonlySet<UnavailableReason> = new Set<UnavailableReason>([
  'unreachable',
  'timeout',
  'server-error',
  'rate-limited',
]);

/**
 * A cached answer: trusted until `expiresAtMs`; a verified one is kept for outages until
 * `staleUntilMs`, and once its instance failed to answer, that failure is repeated without
 * asking until `retryAtMs` (a known user's requests during an outage neither wait for the
 * instance's timeout each time nor add to its load).
 */
type CacheEntry =
  | {
      readonly expiresAtMs: number;
      readonly staleUntilMs: number;
      readonly verified: VerifiedSocialToken;
      readonly outage?: { readonly error: InstanceUnavailableError; readonly retryAtMs: number };
    }
  | { readonly expiresAtMs: number; readonly staleUntilMs: number; readonly verified: null };

/** Verifies Mastodon tokens against their instance; an identity provider (after service tokens). */
export class MastodonIdentityProvider implements SocialTokenProvider {
  readonly name = 'social';
  private readonly client: InstanceClient;
  private defaultInstance: InstanceAddress | undefined;
  /** Canonical hosts (`host[:port]`) tokens may come from; empty: any instance the address rules allow. */
  private allowedHosts: ReadonlySet<string> = new Set();
  private readonly cacheTtlMs: number;
  private readonly staleTtlMs: number;
  private readonly outageRetryMs: number;
  private readonly rejectedTtlMs: number;
  private readonly maxConcurrent: number;
  private readonly now: () => number;
  private readonly cache: LRUCache<string, CacheEntry>;
  private readonly inFlight = new Map<string, Promise<CacheEntry>>();
  private shared: SharedTokenCache | undefined;
  /** Key of the HMAC that names cache entries: cache keys cannot be tested against guessed tokens offline. */
  private readonly secret = randomBytes(32);
  /** Calls made to instances (verify_credentials), for tests and metrics. */
  verifications = 0;

  constructor(options: MastodonIdentityOptions) {
    this.client = options.client;
    this.defaultInstance =
      options.defaultInstance === undefined || options.defaultInstance === ''
        ? undefined
        : parseInstanceAddress(options.defaultInstance, { allowInsecure: options.client.allowInsecure });
    this.cacheTtlMs = options.cacheTtlMs ?? DEFAULT_MASTODON_IDENTITY_OPTIONS.cacheTtlMs;
    this.staleTtlMs = Math.max(this.cacheTtlMs, options.staleTtlMs ?? DEFAULT_MASTODON_IDENTITY_OPTIONS.staleTtlMs);
    this.outageRetryMs = options.outageRetryMs ?? DEFAULT_MASTODON_IDENTITY_OPTIONS.outageRetryMs;
    this.rejectedTtlMs = options.rejectedTtlMs ?? DEFAULT_MASTODON_IDENTITY_OPTIONS.rejectedTtlMs;
    this.maxConcurrent = options.maxConcurrentVerifications ?? DEFAULT_MASTODON_IDENTITY_OPTIONS.maxConcurrentVerifications;
    this.now = options.now ?? Date.now;
    this.shared = options.shared;
    this.cache = new LRUCache({ max: options.cacheCapacity ?? DEFAULT_MASTODON_IDENTITY_OPTIONS.cacheCapacity });
    this.client.onTokenRejected((instance, token) => this.forgetToken(instance, token));
  }

  /** Tokens remembered now (verified or refused). */
  get cacheSize(): number {
    return this.cache.size;
  }

  /**
   * The instance a request addresses: its `X-Social-Instance` header, checked, or the
   * default instance; undefined when neither. Throws InstanceAddressError (400) on a bad header.
   */
  instanceFor(header: string | undefined): InstanceAddress | undefined {
    const instance =
      header === undefined || header === ''
        ? this.defaultInstance
        : parseInstanceAddress(header, { allowInsecure: this.client.allowInsecure });
    if (instance !== undefined && this.allowedHosts.size > 0 && !this.allowedHosts.has(instance.host)) {
      throw new InstanceAddressError(`names ${instance.host}, which is not an instance this service accepts`);
    }
    return instance;
  }

  /**
   * Applies the integration settings (at once, for every later request): the default
   * instance (null: none) and the instances tokens may come from (empty: any).
   */
  configureInstances(defaultInstance: string | null, allowed: readonly string[]): void {
    const parse = (value: string) => parseInstanceAddress(value, { allowInsecure: this.client.allowInsecure });
    this.defaultInstance = defaultInstance === null || defaultInstance === '' ? undefined : parse(defaultInstance);
    this.allowedHosts = new Set(allowed.map((host) => parse(host).host));
  }

  async resolve(token: string, context: SocialTokenContext): Promise<AuthenticatedIdentity | undefined> {
    return (await this.verify(token, context.socialInstance, context.beforeRemoteCheck))?.identity;
  }

  /**
   * After `resolve` threw `error`: when it says the token's instance is down, the identity
   * last verified for this token within `staleTtlMs` (or none); undefined for any other error.
   */
  outage(token: string, context: SocialTokenContext, error: unknown): SocialTokenOutage | undefined {
    if (!(error instanceof InstanceUnavailableError) || !OUTAGE_REASONS.has(error.reason)) return undefined;
    const instance = this.instanceFor(context.socialInstance);
    if (!instance) return undefined;
    const key = this.cacheKey(instance, token);
    const cached = this.cache.peek(key);
    const usable = cached?.verified && cached.staleUntilMs > this.now() ? cached.verified : undefined;
    return { lastVerified: usable?.identity, source: 'social' };
  }

  /**
   * The verified account behind a token (cached), or undefined when the provider does not
   * vouch for it. Throws 400 for a bad instance header, 401 naming the header when there is
   * no instance to ask, and 503 when the instance cannot say; `beforeRemoteCheck` runs (and
   * may throw) before an instance is asked.
   */
  async verify(
    token: string,
    instanceHeader: string | undefined,
    beforeRemoteCheck?: () => Promise<void>,
  ): Promise<VerifiedSocialToken | undefined> {
    if (!BEARER_TOKEN.test(token) || looksLikeServiceToken(token)) return undefined;
    const instance = this.instanceFor(instanceHeader);
    if (!instance) throw new SocialInstanceMissingError();
    const key = this.cacheKey(instance, token);
    const nowMs = this.now();
    const cached = this.cache.get(key);
    if (cached && cached.expiresAtMs > nowMs) return cached.verified ?? undefined;
    // An expired verified answer stays for outages until its stale bound.
    if (cached && !(cached.verified && cached.staleUntilMs > nowMs)) this.cache.delete(key);
    else if (cached?.verified && cached.outage && cached.outage.retryAtMs > nowMs) throw cached.outage.error;
    let pending = this.inFlight.get(key);
    if (!pending && this.shared) {
      // Verified by another instance (or by this one before a restart): no instance call, no token-check charge.
      const entry = await this.fromShared(this.shared, instance, token);
      if (entry) {
        this.cache.set(key, entry);
        return entry.verified;
      }
      pending = this.inFlight.get(key);
    }
    if (!pending && beforeRemoteCheck) {
      await beforeRemoteCheck();
      pending = this.inFlight.get(key);
    }
    if (!pending) {
      if (this.inFlight.size >= this.maxConcurrent) {
        throw new InstanceUnavailableError(
          instance.host,
          'unreachable',
          'cannot be asked now: too many token checks under way',
          undefined,
          1,
        );
      }
      pending = this.ask(instance, token)
        .then(
          (entry) => {
            this.cache.set(key, entry);
            if (entry.verified && this.shared) this.toShared(this.shared, instance, token, entry.verified);
            return entry;
          },
          (error: unknown) => {
            this.noteOutage(key, error);
            throw error;
          },
        )
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return (await pending).verified ?? undefined;
  }

  /** From now on, also looks verified tokens up in (and adds them to) a cache shared by every instance. */
  useSharedCache(shared: SharedTokenCache): void {
    this.shared = shared;
  }

  /** Forgets one token's verification, here and in the shared cache (its instance answered 401 to it). */
  forgetToken(instance: InstanceAddress, token: string): void {
    this.cache.delete(this.cacheKey(instance, token));
    void this.shared?.delete(instance.host, token);
  }

  /** Forgets every cached token (after a revocation the service learns of, or in tests). */
  forget(): void {
    this.cache.clear();
    void this.shared?.clear();
  }

  /** A verified entry of the shared cache, rebuilt and checked like an instance's answer; undefined on any miss or failure. */
  private async fromShared(
    shared: SharedTokenCache,
    instance: InstanceAddress,
    token: string,
  ): Promise<(CacheEntry & { verified: VerifiedSocialToken }) | undefined> {
    const text = await shared.get(instance.host, token);
    if (text === undefined) return undefined;
    let stored: { account?: unknown; verifiedAtMs?: unknown };
    try {
      stored = JSON.parse(text) as typeof stored;
    } catch {
      return undefined;
    }
    const account = accountOf(stored.account);
    const verifiedAtMs = stored.verifiedAtMs;
    if (!account || typeof verifiedAtMs !== 'number' || !Number.isFinite(verifiedAtMs)) return undefined;
    const verified = verifiedToken(instance, account);
    const expiresAtMs = verifiedAtMs + this.cacheTtlMs;
    if (!verified || expiresAtMs <= this.now()) return undefined;
    return { verified, expiresAtMs, staleUntilMs: verifiedAtMs + this.staleTtlMs };
  }

  /** Shares a verification made here (best effort: not awaited, failures ignored by the cache). */
  private toShared(shared: SharedTokenCache, instance: InstanceAddress, token: string, verified: VerifiedSocialToken): void {
    const account = {
      id: verified.account.id,
      username: verified.account.username,
      acct: verified.account.acct,
      display_name: verified.account.displayName,
      url: verified.account.url,
      avatar: verified.account.avatar,
      bot: verified.account.bot,
      locked: verified.account.locked,
    };
    void shared.set(instance.host, token, JSON.stringify({ account, verifiedAtMs: this.now() }), this.cacheTtlMs);
  }

  /** After a failed check: a kept verified answer repeats an outage's error until the retry interval passed. */
  private noteOutage(key: string, error: unknown): void {
    if (!(error instanceof InstanceUnavailableError) || !OUTAGE_REASONS.has(error.reason)) return;
    const cached = this.cache.peek(key);
    if (!cached?.verified) return;
    this.cache.set(key, { ...cached, outage: { error, retryAtMs: this.now() + this.outageRetryMs } });
  }

  private cacheKey(instance: InstanceAddress, token: string): string {
    return createHmac('sha256', this.secret).update(instance.host).update('\n').update(token).digest('base64url');
  }

  private async ask(instance: InstanceAddress, token: string): Promise<CacheEntry> {
    this.verifications += 1;
    let body: unknown;
    try {
      ({ body } = await this.client.request(instance, { method: 'GET', path: '/api/v1/accounts/verify_credentials', token }));
    } catch (error) {
      // 401: unknown, revoked or expired; 403: the account is disabled or suspended; 422: an
      // app token (client credentials) that acts for no user.
      if (
        error instanceof InstanceTokenRejectedError ||
        error instanceof InstanceForbiddenError ||
        (error instanceof InstanceRequestError && error.response.status === 422)
      ) {
        const nowMs = this.now();
        return { verified: null, expiresAtMs: nowMs + this.rejectedTtlMs, staleUntilMs: nowMs };
      }
      if (error instanceof InstanceNotFoundError || error instanceof InstanceRequestError) {
        // 404, 400, 422…: the host does not speak the Mastodon API (or not this endpoint).
        throw new InstanceUnavailableError(
          instance.host,
          'unexpected-status',
          `does not answer verify_credentials like a Mastodon instance (status ${error.response.status})`,
          error.response.status,
        );
      }
      throw error;
    }
    const account = accountOf(body);
    if (!account) throw new InstanceUnavailableError(instance.host, 'bad-response', 'answered verify_credentials without a valid account');
    const verified = verifiedToken(instance, account);
    if (!verified) throw new InstanceUnavailableError(instance.host, 'bad-response', 'answered with an account id too long for a user id');
    const nowMs = this.now();
    return { verified, expiresAtMs: nowMs + this.cacheTtlMs, staleUntilMs: nowMs + this.staleTtlMs };
  }
}

/** The identity of an account of an instance; undefined when its user id would be too long. */
function verifiedToken(instance: InstanceAddress, account: SocialAccount): VerifiedSocialToken | undefined {
  const userId = `${account.id}@${instance.host}`;
  if (userId.length > MAX_USER_ID_LENGTH) return undefined;
  const identity: AuthenticatedIdentity = {
    kind: 'authenticated',
    userId,
    scopes: SOCIAL_SCOPES,
    tier: 'authenticated',
    source: 'social',
    subjectKey: `social:${createHash('sha256').update(userId).digest('base64url').slice(0, 22)}`,
  };
  return { identity, instance, account };
}

/** The account fields kept from a verify_credentials answer; undefined when it is not an account. */
function accountOf(body: unknown): SocialAccount | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  const id = typeof record.id === 'number' && Number.isSafeInteger(record.id) ? String(record.id) : record.id;
  if (typeof id !== 'string' || !SOCIAL_ACCOUNT_ID.test(id)) return undefined;
  const text = (value: unknown, max: number): string | null => (typeof value === 'string' ? value.slice(0, max) : null);
  const username = text(record.username, 256) ?? '';
  return {
    id,
    username,
    acct: text(record.acct, 512) ?? username,
    displayName: text(record.display_name, 512) ?? '',
    url: text(record.url, 2048),
    avatar: text(record.avatar, 2048),
    bot: record.bot === true,
    locked: record.locked === true,
  };
}

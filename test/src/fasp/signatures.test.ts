/**
 * Known-answer tests for FASP's wire mechanics. Reference values, not computed by this code:
 * - RFC 9530 appendix B.1/B.2: `{"hello": "world"}` has sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:;
 *   the digest of zero bytes is the well-known SHA-256 of "" (47DEQpj8...); FASP's Mastodon sends it on every GET.
 * - RFC 9421 appendix B.1.4 (test-key-ed25519) and B.2.6 (its signature base and signature
 *   sig-b26=:wqcAqbmY...RCw==:), as reproduced also by Linzer's and http-message-signatures' test suites.
 */
import { createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  contentDigest,
  contentDigestMatches,
  generateEd25519KeyPair,
  keyFingerprint,
  parseSignatures,
  privateKeyFromDer,
  publicKeyFromRaw,
  rawPublicKey,
  signatureBase,
  signFaspRequest,
  signFaspResponse,
  signMessage,
  verifyFaspRequest,
  verifyFaspResponse,
  verifySignature,
} from '../../../src/fasp/index.js';

const RFC9421_ED25519_PRIVATE = createPrivateKey(
  '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n',
);
/** B.1.4's public key as the raw 32 bytes (its JWK `x`), exchanged the way FASP exchanges keys. */
const RFC9421_ED25519_PUBLIC_RAW = Buffer.from('JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs', 'base64url');

const B26_COMPONENTS = ['date', '@method', '@path', '@authority', 'content-type', 'content-length'];
const B26_PARAMS = new Map<string, string | number>([
  ['created', 1618884473],
  ['keyid', 'test-key-ed25519'],
]);
const B26_VALUES: Record<string, string> = {
  date: 'Tue, 20 Apr 2021 02:07:55 GMT',
  '@method': 'POST',
  '@path': '/foo',
  '@authority': 'example.com',
  'content-type': 'application/json',
  'content-length': '18',
};
const B26_BASE = [
  '"date": Tue, 20 Apr 2021 02:07:55 GMT',
  '"@method": POST',
  '"@path": /foo',
  '"@authority": example.com',
  '"content-type": application/json',
  '"content-length": 18',
  '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
].join('\n');
const B26_INPUT =
  'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"';
const B26_SIGNATURE = 'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:';

describe('RFC 9530 Content-Digest', () => {
  it('gives the RFC example digest and checks it', () => {
    expect(contentDigest('{"hello": "world"}')).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
    expect(contentDigest('')).toBe('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:');
    expect(contentDigestMatches('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:', '{"hello": "world"}')).toBe(true);
  });

  it('finds the sha-256 member among others and refuses a mismatch or a malformed header', () => {
    const both =
      'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:, sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:';
    expect(contentDigestMatches(both, '{"hello": "world"}')).toBe(true);
    expect(contentDigestMatches('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:', '{"hello": "world!"}')).toBe(false);
    expect(contentDigestMatches('sha-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=', '{"hello": "world"}')).toBe(false);
    expect(contentDigestMatches(undefined, '')).toBe(false);
  });
});

describe('RFC 9421 with Ed25519 (appendix B.2.6)', () => {
  it('builds the RFC signature base and signs it to the RFC signature', () => {
    expect(signatureBase(B26_COMPONENTS, B26_PARAMS, (name) => B26_VALUES[name])).toBe(B26_BASE);
    const signed = signMessage({
      label: 'sig-b26',
      components: B26_COMPONENTS,
      params: B26_PARAMS,
      privateKey: RFC9421_ED25519_PRIVATE,
      resolve: (name) => B26_VALUES[name],
    });
    expect(signed).toEqual({ signatureInput: B26_INPUT, signature: B26_SIGNATURE });
  });

  it('verifies the RFC signature with the public key exchanged as raw 32 bytes, and not a changed message', () => {
    const key = publicKeyFromRaw(RFC9421_ED25519_PUBLIC_RAW.toString('base64'));
    expect(key).toBeDefined();
    const [received] = parseSignatures(B26_INPUT, B26_SIGNATURE) ?? [];
    expect(received?.label).toBe('sig-b26');
    expect(received?.components).toEqual(B26_COMPONENTS);
    expect(verifySignature(received!, key!, (name) => B26_VALUES[name])).toBe(true);
    expect(verifySignature(received!, key!, (name) => (name === '@path' ? '/bar' : B26_VALUES[name]))).toBe(false);
    expect(rawPublicKey(RFC9421_ED25519_PRIVATE).equals(RFC9421_ED25519_PUBLIC_RAW)).toBe(true);
  });

  it('refuses a public key that is not 32 bytes and malformed signature fields', () => {
    expect(publicKeyFromRaw(Buffer.alloc(31))).toBeUndefined();
    expect(parseSignatures('sig1=("@method"', 'sig1=:AA==:')).toBeUndefined();
  });
});

describe('FASP signatures', () => {
  const now = 1_800_000_000;
  const pair = generateEd25519KeyPair();
  const privateKey = privateKeyFromDer(pair.privateKeyDer);
  const publicKey = publicKeyFromRaw(pair.publicKeyRaw)!;
  const targetUri = 'https://recsvc.example/fasp/trends/v0/content?language=en&maxCount=20&withinLastHours=4';

  it('fingerprints the raw key as base64 of its SHA-256 (Mastodon shows the same)', () => {
    // B.1.4's raw public key through OpenSSL: `printf %s JrQL…0bs= | tr _- /+ | base64 -d | openssl dgst -sha256 -binary | base64`.
    expect(keyFingerprint(RFC9421_ED25519_PUBLIC_RAW)).toBe('sWwtG+rRJiY5dk/bDuTTd0WZM2vUk0BM2ksRNsWfIGI=');
  });

  it('signs a GET as Mastodon does (empty body, its digest) and verifies it', async () => {
    const headers = signFaspRequest({ method: 'get', targetUri, body: '', keyid: 'b2ks6vm8p23w', privateKey, nowSeconds: now });
    expect(headers['signature-input']).toBe(`sig1=("@method" "@target-uri" "content-digest");created=${now};keyid="b2ks6vm8p23w"`);
    const result = await verifyFaspRequest(
      { method: 'GET', targetUri, headers, body: undefined },
      (id) => (id === 'b2ks6vm8p23w' ? publicKey : undefined),
      now + 10,
    );
    expect(result).toEqual({ ok: true, keyid: 'b2ks6vm8p23w', created: now });
  });

  it('refuses tampered, stale, re-targeted, unsigned and unknown-key requests', async () => {
    const body = '{"a":1}';
    const headers = signFaspRequest({ method: 'POST', targetUri, body, keyid: 'k', privateKey, nowSeconds: now });
    const keyFor = (id: string) => (id === 'k' ? publicKey : undefined);
    const check = (over: Partial<{ method: string; targetUri: string; body: string; headers: Record<string, string> }>, at = now) =>
      verifyFaspRequest({ method: 'POST', targetUri, body, headers, ...over }, keyFor, at);
    expect((await check({})).ok).toBe(true);
    expect(await check({ body: '{"a":2}' })).toMatchObject({ ok: false, reason: expect.stringContaining('content-digest') });
    expect(await check({ headers: { ...headers, 'content-digest': contentDigest('{"a":2}') }, body: '{"a":2}' })).toMatchObject({
      ok: false,
      reason: 'the signature does not verify',
    });
    expect(await check({}, now + 301)).toMatchObject({ ok: false, reason: expect.stringContaining('stale') });
    expect(await check({}, now - 301)).toMatchObject({ ok: false });
    expect(await check({ targetUri: targetUri.replace('maxCount=20', 'maxCount=200') })).toMatchObject({
      ok: false,
      reason: 'the signature does not verify',
    });
    expect(await check({ method: 'DELETE' })).toMatchObject({ ok: false });
    expect(await check({ headers: { 'content-digest': headers['content-digest'] } })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('missing'),
    });
    const other = signFaspRequest({ method: 'POST', targetUri, body, keyid: 'other', privateKey, nowSeconds: now });
    expect(await check({ headers: { ...other } })).toMatchObject({ ok: false, reason: 'unknown keyid' });
  });

  it('signs and verifies a response over @status and content-digest, including a 204', async () => {
    const headers = signFaspResponse({ status: 204, body: '', privateKey, nowSeconds: now });
    expect(headers['signature-input']).toBe(`sig1=("@status" "content-digest");created=${now}`);
    expect((await verifyFaspResponse({ status: 204, headers, body: '' }, publicKey, now)).ok).toBe(true);
    expect((await verifyFaspResponse({ status: 200, headers, body: '' }, publicKey, now)).ok).toBe(false);
  });
});

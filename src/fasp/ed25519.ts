/**
 * Ed25519 keys as FASP exchanges them: public keys as base64 of the raw 32 bytes, the
 * fingerprint an admin compares as base64 of SHA-256 of those bytes (Mastodon's
 * `provider_public_key_fingerprint`). Private keys travel only as PKCS#8 DER.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

export const ED25519_PUBLIC_KEY_BYTES = 32;

export interface Ed25519KeyPair {
  /** PKCS#8 DER. */
  readonly privateKeyDer: Buffer;
  /** The raw 32-byte public key. */
  readonly publicKeyRaw: Buffer;
}

/** A new key pair. */
export function generateEd25519KeyPair(): Ed25519KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKeyDer: privateKey.export({ format: 'der', type: 'pkcs8' }), publicKeyRaw: rawPublicKey(publicKey) };
}

/** The public key of raw 32 bytes (base64 or bytes); undefined when it is not 32 bytes. */
export function publicKeyFromRaw(raw: Uint8Array | string): KeyObject | undefined {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'base64') : Buffer.from(raw);
  if (bytes.length !== ED25519_PUBLIC_KEY_BYTES) return undefined;
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: bytes.toString('base64url') }, format: 'jwk' });
}

/** The private key of PKCS#8 DER bytes. */
export function privateKeyFromDer(der: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
}

/** The raw 32 bytes of an Ed25519 public (or private) key. */
export function rawPublicKey(key: KeyObject): Buffer {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const jwk = publicKey.export({ format: 'jwk' });
  return Buffer.from(jwk.x ?? '', 'base64url');
}

/** base64(SHA-256(raw public key)): what a Mastodon admin sees beside the provider. */
export function keyFingerprint(publicKeyRaw: Uint8Array): string {
  return createHash('sha256').update(publicKeyRaw).digest('base64');
}

/** The Ed25519 signature of `data`. */
export function signEd25519(privateKey: KeyObject, data: Uint8Array | string): Buffer {
  return sign(null, Buffer.from(data), privateKey);
}

/** Whether `signature` is a valid Ed25519 signature of `data` (false for any malformed input). */
export function verifyEd25519(publicKey: KeyObject, data: Uint8Array | string, signature: Uint8Array): boolean {
  try {
    return verify(null, Buffer.from(data), publicKey, signature);
  } catch {
    return false;
  }
}

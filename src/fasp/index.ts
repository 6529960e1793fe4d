/** FASP's wire mechanics, pure: content digests, RFC 9421 signatures, Ed25519 keys. */
export * from './content-digest.js';
export * from './ed25519.js';
export * from './fasp-signature.js';
export * from './message-signature.js';
export * from './trends.js';
export * from './accounts.js';
export * from './activitypub.js';

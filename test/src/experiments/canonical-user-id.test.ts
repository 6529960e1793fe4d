/**
 * Fediverse-aware identity (canonical-user-id.ts): the spellings of one account are one user,
 * the rule is idempotent, and ids already canonical keep the bucket the spec's rule gives them.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketOf, explainBucket, trafficBucketOf } from '../../../src/experiments/assignment.js';
import { canonicalUserId, instanceOfUser } from '../../../src/experiments/canonical-user-id.js';

/** The spec's rule written out again, on the id as given. */
const specBucket = (text: string) => Number.parseInt(createHash('md5').update(text).digest('hex').slice(0, 8), 16) % 100;

const username = fc.stringMatching(/^[A-Za-z0-9_]{1,20}$/);
const label = fc.stringMatching(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,10}[A-Za-z0-9])?$/);
const host = fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => [...labels, 'social'].join('.'));
/** A random casing of a string. */
const recased = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((flips) => [...text].map((ch, i) => (flips[i] ? ch.toUpperCase() : ch.toLowerCase())).join(''));

describe('canonicalUserId', () => {
  it('makes @Alice@Mastodon.Social, alice@mastodon.social and acct:alice@mastodon.social one user', () => {
    for (const spelling of [
      '@Alice@Mastodon.Social',
      'alice@mastodon.social',
      'acct:alice@mastodon.social',
      'ACCT:@ALICE@MASTODON.SOCIAL',
    ]) {
      expect(canonicalUserId(spelling)).toBe('alice@mastodon.social');
    }
    expect(canonicalUserId('alice@Mastodon.Social.')).toBe('alice@mastodon.social');
    expect(canonicalUserId('bob@Example.ORG:8443')).toBe('bob@example.org:8443');
  });

  it('keeps a bare local id as it is, case included, and strips only a leading @ or acct:', () => {
    expect(canonicalUserId('user42')).toBe('user42');
    expect(canonicalUserId('UserABC')).toBe('UserABC');
    expect(canonicalUserId(12345)).toBe('12345');
    expect(canonicalUserId('@Carol')).toBe('Carol');
    expect(canonicalUserId('acct:Carol')).toBe('Carol');
    expect(canonicalUserId('@')).toBe('@');
    expect(canonicalUserId('not a handle@x y')).toBe('not a handle@x y');
  });

  it('is idempotent (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'grapheme' }),
          fc.string({ unit: fc.constantFrom('@', 'a', 'A', 'c', 't', ':', '.', 'İ', 'ß', 'x') }),
          fc.tuple(username, host).map(([u, h]) => `@${u}@${h}`),
        ),
        (id) => {
          const once = canonicalUserId(id);
          expect(canonicalUserId(once)).toBe(once);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('gives every spelling of a handle the same id, and the same buckets (property)', () => {
    fc.assert(
      fc.property(
        username,
        host,
        fc.constantFrom('', '@', 'acct:', 'acct:@', 'ACCT:'),
        fc.nat(1000),
        (user, domain, prefix, experiment) => {
          const canonical = `${user.toLowerCase()}@${domain.toLowerCase()}`;
          return fc.assert(
            fc.property(recased(user), recased(domain), (u, d) => {
              const spelled = `${prefix}${u}@${d}`;
              expect(canonicalUserId(spelled)).toBe(canonical);
              expect(bucketOf(spelled, experiment)).toBe(bucketOf(canonical, experiment));
              expect(trafficBucketOf(spelled, experiment)).toBe(trafficBucketOf(canonical, experiment));
            }),
            { numRuns: 5 },
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves the bucket of an already-canonical id exactly as the spec rule gives it (property)', () => {
    const canonicalIds = fc.oneof(
      fc.stringMatching(/^[a-zA-Z0-9_]{1,30}$/),
      fc.tuple(username, host).map(([u, h]) => `${u.toLowerCase()}@${h.toLowerCase()}`),
      fc.nat().map(String),
    );
    fc.assert(
      fc.property(canonicalIds, fc.nat(10_000), (id, experiment) => {
        expect(canonicalUserId(id)).toBe(id);
        expect(bucketOf(id, experiment)).toBe(specBucket(`${id}_${experiment}`));
        expect(trafficBucketOf(id, experiment)).toBe(specBucket(`${id}_${experiment}_traffic`));
      }),
      { numRuns: 2000 },
    );
  });

  it('explains the bucket of a spelling with the canonical id as the hash input', () => {
    expect(explainBucket('@Alice@Mastodon.Social', 7).input).toBe('alice@mastodon.social_7');
    expect(explainBucket('@Alice@Mastodon.Social', 7).bucket).toBe(specBucket('alice@mastodon.social_7'));
  });
});

describe('instanceOfUser', () => {
  it('is the host of a handle, or the local label for a bare local id', () => {
    expect(instanceOfUser('@Alice@Mastodon.Social')).toBe('mastodon.social');
    expect(instanceOfUser('109354342312345678@mastodon.social')).toBe('mastodon.social');
    expect(instanceOfUser('user42')).toBe('local');
    expect(instanceOfUser('user42', 'recs.example')).toBe('recs.example');
  });
});

/** The account capabilities' pure rules: who may be returned, how a term scores, how signals combine. */
import { describe, expect, it } from 'vitest';
import {
  accountMayBeDiscovered,
  followScore,
  scaledToMax,
  searchScore,
  searchWords,
  type DiscoverableAccount,
} from '../../../src/fasp/index.js';

const account = (fields: Partial<DiscoverableAccount> = {}): DiscoverableAccount => ({
  uri: 'https://one.example/users/cat',
  username: 'cat',
  acct: 'cat@one.example',
  displayName: 'Cat Person',
  note: '<p>I write about <a href="x">#<span>felines</span></a></p>',
  discoverable: true,
  ...fields,
});

describe('accountMayBeDiscovered', () => {
  it('admits only accounts that said discoverable: true, without #nobot/#noindex, not memorials, with an http(s) id', () => {
    expect(accountMayBeDiscovered(account())).toBe(true);
    expect(accountMayBeDiscovered(account({ discoverable: false }))).toBe(false);
    expect(accountMayBeDiscovered(account({ discoverable: null }))).toBe(false);
    expect(accountMayBeDiscovered(account({ memorial: true }))).toBe(false);
    expect(accountMayBeDiscovered(account({ note: '<p>hi <a>#<span>NoBot</span></a></p>' }))).toBe(false);
    expect(accountMayBeDiscovered(account({ note: '<p>#noindex</p>' }))).toBe(false);
    expect(accountMayBeDiscovered(account({ uri: 'acct:cat@one.example' }))).toBe(false);
  });
});

describe('searchScore', () => {
  it('scores each word where it matches best, and 0 when one matches nowhere', () => {
    expect(searchWords('  @Cat  Person ')).toEqual(['cat', 'person']);
    expect(searchScore(['cat'], account(), [])).toBe(100);
    expect(searchScore(['cat@one.example'], account(), [])).toBe(100);
    expect(searchScore(['ca'], account(), [])).toBe(60);
    expect(searchScore(['person'], account(), [])).toBe(50);
    expect(searchScore(['pers'], account(), [])).toBe(30);
    expect(searchScore(['felines'], account(), [])).toBe(10);
    expect(searchScore(['cat', 'felines'], account(), [])).toBe(110);
    expect(searchScore(['cat', 'dog'], account(), [])).toBe(0);
    expect(searchScore(['cat'], account(), ['de-AT'], 'de')).toBe(115);
    expect(searchScore(['cat'], account(), ['en'], 'de')).toBe(100);
  });
});

describe('followScore', () => {
  it('adds the personal signals and a fraction of popularity, each scaled to its largest', () => {
    expect([
      ...scaledToMax(
        new Map([
          ['a', 4],
          ['b', 1],
          ['c', 0],
        ]),
      ),
    ]).toEqual([
      ['a', 1],
      ['b', 0.25],
      ['c', 0],
    ]);
    expect([...scaledToMax(new Map([['a', 0]]))]).toEqual([['a', 0]]);
    expect(followScore({ coEngaged: 1, neighbours: 0.5, popular: 1 })).toBeCloseTo(1.8, 12);
    // Popularity alone never outranks a personal signal at full strength.
    expect(followScore({ coEngaged: 0, neighbours: 0, popular: 1 })).toBeLessThan(
      followScore({ coEngaged: 0, neighbours: 0.5, popular: 0 }),
    );
  });
});

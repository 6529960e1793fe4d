import { describe, expect, it } from 'vitest';
import { accountIdOfUser } from '../../../src/auth/user-account.js';

describe('accountIdOfUser', () => {
  it('is the bare account id of a Mastodon user id `<digits>@<host>`', () => {
    expect(accountIdOfUser('109354342312345678@mastodon.social')).toBe('109354342312345678');
    expect(accountIdOfUser('7@127.0.0.1:8443')).toBe('7');
    expect(accountIdOfUser('0012@xn--bcher-kva.example')).toBe('0012');
  });

  it('keeps an acct-style id whole: its user part is not an account id', () => {
    expect(accountIdOfUser('alice@mastodon.social')).toBe('alice@mastodon.social');
    expect(accountIdOfUser('user42@host.example')).toBe('user42@host.example');
    expect(accountIdOfUser('42a@host.example')).toBe('42a@host.example');
  });

  it('keeps a plain id whole, digits or not', () => {
    expect(accountIdOfUser('user-1')).toBe('user-1');
    expect(accountIdOfUser('109354342312345678')).toBe('109354342312345678');
    expect(accountIdOfUser('')).toBe('');
  });

  it('keeps ids whose `@` does not separate digits from one host', () => {
    for (const id of [
      '@mastodon.social',
      '123@',
      '@',
      '123@@host',
      '123@a@b',
      '@123@host',
      'acct:123@host',
      ' 123@host',
      '123@ho st',
      '-1@host',
      '1.5@host',
      '١٢٣@host',
    ]) {
      expect(accountIdOfUser(id), id).toBe(id);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { accountIdOfUser, accountOfUser, SOCIAL_ACCOUNT_ID } from '../../../src/auth/user-account.js';

describe('accountIdOfUser', () => {
  it('is the bare account id of a social user id `<account id>@<host>`: Mastodon digits, Pleroma flake ids, GoToSocial ULIDs', () => {
    expect(accountIdOfUser('109354342312345678@mastodon.social')).toBe('109354342312345678');
    expect(accountIdOfUser('7@127.0.0.1:8443')).toBe('7');
    expect(accountIdOfUser('0012@xn--bcher-kva.example')).toBe('0012');
    expect(accountIdOfUser('AbCdEfGh1234567890@pleroma.example')).toBe('AbCdEfGh1234567890');
    expect(accountIdOfUser('01ARZ3NDEKTSV4RRFFQ69G5FAV@gts.example')).toBe('01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(accountIdOfUser('user_42-a@host.example')).toBe('user_42-a');
  });

  it('keeps a plain id whole', () => {
    expect(accountIdOfUser('user-1')).toBe('user-1');
    expect(accountIdOfUser('109354342312345678')).toBe('109354342312345678');
    expect(accountIdOfUser('')).toBe('');
  });

  it('keeps ids whose `@` does not separate one account id from one host', () => {
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
      '1.5@host',
      '١٢٣@host',
      `${'a'.repeat(41)}@host`,
    ]) {
      expect(accountIdOfUser(id), id).toBe(id);
    }
  });
});

describe('accountOfUser', () => {
  it('splits `<account id>@<host>` with the host lowercased, as the identity provider mints user ids', () => {
    expect(accountOfUser('42@Social.Example:8443')).toEqual({ accountId: '42', host: 'social.example:8443' });
    expect(accountOfUser('01ARZ3NDEKTSV4RRFFQ69G5FAV@gts.example')).toEqual({
      accountId: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      host: 'gts.example',
    });
    expect(accountOfUser('user-1')).toBeUndefined();
    expect(accountOfUser('a.b@host')).toBeUndefined();
  });

  it('reads exactly the account ids the identity provider accepts', () => {
    for (const id of ['1', 'a', 'Z_-9', 'x'.repeat(40)]) {
      expect(SOCIAL_ACCOUNT_ID.test(id), id).toBe(true);
      expect(accountOfUser(`${id}@h`)?.accountId, id).toBe(id);
    }
    for (const id of ['', 'x'.repeat(41), 'a.b', 'a b', 'é']) {
      expect(SOCIAL_ACCOUNT_ID.test(id), id).toBe(false);
      expect(accountOfUser(`${id}@h`), id).toBeUndefined();
    }
  });
});

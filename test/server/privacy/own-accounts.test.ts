/**
 * Which stored accounts erasure treats as the user's own (findOwnAccountIds): the user id
 * itself, and for `<account id>@<host>` (accountOfUser, the rule the ranking's own-post
 * exclusion uses) that account when its URL is on that host — for every account id the
 * identity provider accepts (Mastodon digits, Pleroma flake ids, GoToSocial ULIDs).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findOwnAccountIds } from '../../../server/posts/user-accounts.repository.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

let t: TestApp;

/** A stored post by account `id` whose profile URL is on `host`. */
function statusBy(n: number, id: string, host: string) {
  const status = makeStatus({ n, author: `u${n}` });
  return { ...status, account: { ...status.account, id, url: `https://${host}/@u${n}` } };
}

beforeEach(async () => {
  t = await createTestApp();
  const statuses = [
    statusBy(1, '42', 'social.example'),
    statusBy(2, '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'gts.example'),
    statusBy(3, 'AbCdEf123', 'Pleroma.Example'),
    statusBy(4, 'alice', 'social.example'),
  ];
  const stored = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
  expect(stored.statusCode).toBe(201);
});

afterEach(async () => {
  await t.close();
});

describe('findOwnAccountIds', () => {
  it('finds the account of `<account id>@<host>` on that host, whatever the server software numbers it by', async () => {
    const db = t.database.db;
    expect(await findOwnAccountIds(db, '42@social.example')).toEqual(['42']);
    expect(await findOwnAccountIds(db, '42@SOCIAL.example')).toEqual(['42']);
    expect(await findOwnAccountIds(db, '01ARZ3NDEKTSV4RRFFQ69G5FAV@gts.example')).toEqual(['01ARZ3NDEKTSV4RRFFQ69G5FAV']);
    expect(await findOwnAccountIds(db, 'AbCdEf123@pleroma.example')).toEqual(['AbCdEf123']);
  });

  it('never takes the same id on another host, nor an id that is not the user', async () => {
    const db = t.database.db;
    expect(await findOwnAccountIds(db, '42@other.example')).toEqual([]);
    expect(await findOwnAccountIds(db, '01ARZ3NDEKTSV4RRFFQ69G5FAV@social.example')).toEqual([]);
    expect(await findOwnAccountIds(db, '43@social.example')).toEqual([]);
    expect(await findOwnAccountIds(db, 'bob')).toEqual([]);
  });

  it('takes an account whose id is the user id itself', async () => {
    expect(await findOwnAccountIds(t.database.db, 'alice')).toEqual(['alice']);
  });
});

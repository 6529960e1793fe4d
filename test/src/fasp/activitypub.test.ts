/** Data sharing's consent rules over fetched ActivityPub objects, and their conversion. */
import { describe, expect, it } from 'vitest';
import {
  actorConsentsToDiscovery,
  actorConsentsToIndexing,
  addressedToPublic,
  postConsents,
  postToStatus,
} from '../../../src/fasp/index.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const author = { id: 'https://a.example/users/u', type: 'Person', preferredUsername: 'u', discoverable: true, indexable: true };
const post = {
  id: 'https://a.example/users/u/statuses/1',
  type: 'Note',
  attributedTo: 'https://a.example/users/u',
  to: [PUBLIC],
  cc: ['https://a.example/users/u/followers'],
  contentMap: { de: '<p>Hallo</p>' },
  content: '<p>Hallo</p>',
  published: '2026-11-27T10:00:00Z',
  tag: [
    { type: 'Hashtag', name: '#Katzen', href: 'https://a.example/tags/katzen' },
    { type: 'Mention', href: 'https://b.example/x' },
  ],
};

describe('consent', () => {
  it('takes Public only from `to` (in any of its spellings), never from `cc` alone', () => {
    expect(addressedToPublic(post)).toBe(true);
    expect(addressedToPublic({ to: 'as:Public' })).toBe(true);
    expect(addressedToPublic({ to: { id: PUBLIC } })).toBe(true);
    expect(addressedToPublic({ to: ['https://a.example/users/u/followers'], cc: [PUBLIC] })).toBe(false);
    expect(addressedToPublic({})).toBe(false);
  });

  it('stores a post only by an indexable author of its own host, fetched from its own id', () => {
    expect(postConsents(post.id, post, author)).toBe(true);
    expect(postConsents(post.id, post, { ...author, indexable: false })).toBe(false);
    expect(postConsents(post.id, post, { ...author, indexable: undefined })).toBe(false);
    expect(postConsents(post.id, post, { ...author, summary: '<p>#nobot</p>' })).toBe(false);
    expect(postConsents(post.id, { ...post, to: [], cc: [PUBLIC] }, author)).toBe(false);
    expect(postConsents('https://a.example/other', post, author)).toBe(false);
    expect(
      postConsents(post.id, { ...post, attributedTo: 'https://b.example/users/u' }, { ...author, id: 'https://b.example/users/u' }),
    ).toBe(false);
    expect(postConsents(post.id, { ...post, type: 'Person' }, author)).toBe(false);
  });

  it('tells discoverability and indexability apart', () => {
    expect(actorConsentsToDiscovery({ ...author, indexable: false })).toBe(true);
    expect(actorConsentsToIndexing({ ...author, indexable: false })).toBe(false);
    expect(actorConsentsToDiscovery({ ...author, discoverable: false })).toBe(false);
    expect(actorConsentsToDiscovery({ ...author, type: 'Note' })).toBe(false);
  });
});

describe('postToStatus', () => {
  it('keeps the language, hashtags and author of the post', () => {
    const status = postToStatus(post, author);
    expect(status).toMatchObject({
      id: post.id,
      uri: post.id,
      language: 'de',
      visibility: 'public',
      tags: [{ name: 'Katzen', url: 'https://a.example/tags/katzen' }],
      account: { uri: author.id, acct: 'u@a.example', discoverable: true, indexable: true },
    });
  });
});

/**
 * The demo data set as what the posts and interactions features take in: Mastodon statuses
 * (with their authors' accounts) and past interactions. Counters on a status are the
 * engagement from other instances; the interactions' own are added as they are loaded.
 */
import type { AccountInput, StatusInput } from '../../src/schemas/post.schema.js';
import type { ImportedInteraction } from '../interactions/interaction.service.js';
import type { DemoData } from './demo-generator.js';

const DEMO_ORIGIN = 'https://demo.recsvc.example';

/** The authors as Mastodon accounts (those without a post too), each with its number of posts in the data set. */
export function demoAccounts(data: DemoData, anchorMs: number): AccountInput[] {
  const statuses = new Map<number, number>();
  for (const post of data.posts) statuses.set(post.authorIndex, (statuses.get(post.authorIndex) ?? 0) + 1);
  const createdAt = new Date(anchorMs - 365 * 86_400_000).toISOString();
  return data.authors.map((a, i) => {
    const account: AccountInput = {
      id: a.id,
      username: a.username,
      acct: a.username,
      display_name: `Author ${i} (${a.topics[0]})`,
      note: `<p>Posts about ${a.topics.join(', ')}</p>`,
      url: `${DEMO_ORIGIN}/@${a.username}`,
      uri: `${DEMO_ORIGIN}/users/${a.username}`,
      avatar: `${DEMO_ORIGIN}/avatars/${a.username}.png`,
      header: `${DEMO_ORIGIN}/headers/original/missing.png`,
      locked: false,
      bot: false,
      group: false,
      followers_count: Math.floor(a.popularity * 40),
      following_count: 50 + (i % 200),
      statuses_count: statuses.get(i) ?? 0,
      created_at: createdAt,
    };
    return Object.assign(account, { discoverable: true, emojis: [], fields: [] });
  });
}

/** The posts as Mastodon statuses, oldest first. */
export function demoStatuses(data: DemoData, accounts: readonly AccountInput[]): StatusInput[] {
  return data.posts.map((p) => {
    const account = accounts[p.authorIndex];
    if (!account) throw new Error(`demo post ${p.id} has no author ${p.authorIndex}`);
    const hashtags = p.tags
      .map((t) => `<a href="${DEMO_ORIGIN}/tags/${t}" class="mention hashtag" rel="tag">#<span>${t}</span></a>`)
      .join(' ');
    return {
      id: p.id,
      uri: `${DEMO_ORIGIN}/users/${account.username}/statuses/${p.id}`,
      url: `${DEMO_ORIGIN}/@${account.username}/${p.id}`,
      created_at: new Date(p.createdAtMs).toISOString(),
      account,
      content: `<p>${p.text} ${hashtags}</p>`,
      spoiler_text: '',
      visibility: 'public',
      sensitive: false,
      language: p.language,
      tags: p.tags,
      favourites_count: p.remoteFavourites,
      reblogs_count: p.remoteReblogs,
      replies_count: p.replies,
    };
  });
}

/** The users' interactions, in the order they were generated (the data set's own objects, not copies). */
export function demoInteractions(data: DemoData): readonly ImportedInteraction[] {
  return data.interactions;
}

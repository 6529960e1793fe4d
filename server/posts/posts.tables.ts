/** Table types of the posts feature (accounts, posts, post_tags, and each instance's ids for them). */
export interface AccountsTable {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  note: string;
  url: string;
  uri: string;
  avatar: string;
  header: string;
  locked: number;
  bot: number;
  group: number;
  followers_count: number;
  following_count: number;
  statuses_count: number;
  created_at: string;
  /** JSON: fields, emojis and other Account attributes kept as given. */
  extras_json: string;
  original_json: string | null;
}

export interface PostsTable {
  id: string;
  /** Text-comparable id: numeric ids left-padded to 20 digits. */
  sort_key: string;
  account_id: string;
  uri: string;
  url: string | null;
  content: string;
  plain_text: string;
  spoiler_text: string;
  visibility: string;
  sensitive: number;
  language: string | null;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  reblog_of_id: string | null;
  /** Lowercase tag names separated by spaces (post_tags holds them for filtering). */
  tag_names: string;
  created_at: string;
  created_at_ms: number;
  edited_at: string | null;
  favourites_count: number;
  reblogs_count: number;
  replies_count: number;
  bookmarks_count: number;
  /** JSON: media_attachments, mentions, emojis, card, poll, application. */
  extras_json: string;
  original_json: string | null;
  ingested_at: string;
  /** The host of `uri`: the instance whose word the post's content is ('' when `uri` is not a URL). */
  origin_host: string;
  /** The instance whose copy the stored content is ('' for the service's own posts API, and rows stored before identity by URI). */
  source_instance: string;
}

export interface PostTagsTable {
  post_id: string;
  tag: string;
  sort_key: string;
}

/** An instance's own id for a post (Mastodon ids are unique only within one instance). */
export interface PostInstanceIdsTable {
  /** Canonical `host[:port]` (InstanceAddress.host). */
  instance: string;
  local_id: string;
  post_id: string;
}

/** An instance's own id for an account. */
export interface AccountInstanceIdsTable {
  instance: string;
  local_id: string;
  account_id: string;
}

export interface PostTables {
  accounts: AccountsTable;
  posts: PostsTable;
  post_tags: PostTagsTable;
  post_instance_ids: PostInstanceIdsTable;
  account_instance_ids: AccountInstanceIdsTable;
}

// These tables join the service's one `Database` type (server/platform/db/database.ts).
declare module '../platform/db/database.js' {
  interface Database extends PostTables {}
}

/**
 * The account on an instance a user id stands for, so a user's own posts can be told apart.
 * A caller with a Mastodon token is user `<account id>@<instance host>`
 * (server/social/mastodon-identity.ts), while the posts stored from that instance's timelines
 * carry the bare account id the instance gave them (`status.account.id`). Mastodon account
 * ids are numeric strings, so only `<digits>@<host>` is read that way: an acct-style
 * `alice@host`, or any other id, is an account id as it is.
 *
 * The trade-off: posts are matched by the id the user's own instance gives them, so an author
 * on another instance with the same local id is left out of that user's lists too, and the
 * user's posts as another instance numbers them are not recognised.
 */

/** `<digits>@<host>`: the digits are the account id on the instance; the host has no `@` nor white space. */
const INSTANCE_ACCOUNT = /^([0-9]+)@[^@\s]+$/;

/** The account id a user id stands for: the digits of `<digits>@<host>`, else the user id itself. */
export function accountIdOfUser(userId: string): string {
  return INSTANCE_ACCOUNT.exec(userId)?.[1] ?? userId;
}

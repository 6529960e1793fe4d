/**
 * The account on an instance a user id stands for, so a user's own posts can be told apart.
 * A caller with a Mastodon token is user `<account id>@<instance host>`
 * (server/platform/social/mastodon-identity.ts), while the posts stored from that instance's timelines
 * carry the bare account id the instance gave them (`status.account.id`). Account ids are
 * what Mastodon (digits), Pleroma and Akkoma (flake ids) and GoToSocial (ULIDs) send:
 * `SOCIAL_ACCOUNT_ID`, the same rule the identity code accepts them by. So
 * `<SOCIAL_ACCOUNT_ID>@<host>` is read as that account on that host; any other id is an
 * account id as it is.
 *
 * The trade-off: posts are matched by the id the user's own instance gives them, so an author
 * on another instance with the same local id is left out of that user's lists too, and the
 * user's posts as another instance numbers them are not recognised. (A service user whose id
 * happens to look like `<id>@<host>` has posts by account `<id>` left out of their lists.)
 */

/** An account id as instances send them (Mastodon digits, Pleroma flake ids, GoToSocial ULIDs), bounded. */
export const SOCIAL_ACCOUNT_ID = /^[A-Za-z0-9_-]{1,40}$/;

/** `<account id>@<host>`: the host has no `@` nor white space. */
const INSTANCE_ACCOUNT = /^([A-Za-z0-9_-]{1,40})@([^@\s]+)$/;

/** The account and host a user id `<account id>@<host>` stands for (host lowercased); undefined for any other id. */
export function accountOfUser(userId: string): { accountId: string; host: string } | undefined {
  const match = INSTANCE_ACCOUNT.exec(userId);
  return match ? { accountId: match[1]!, host: match[2]!.toLowerCase() } : undefined;
}

/** The account id a user id stands for: the account of `<account id>@<host>`, else the user id itself. */
export function accountIdOfUser(userId: string): string {
  return accountOfUser(userId)?.accountId ?? userId;
}

/**
 * Post ids as Mastodon makes them: (milliseconds << 16) | sequence, as decimal
 * strings, so newer posts have larger ids and `max_id`/`since_id` page by comparison.
 */

let sequence = Math.floor(Math.random() * 0x10000);

/** A new snowflake-like id for a post created at `createdAtMs`. */
export function generatePostId(createdAtMs: number): string {
  sequence = (sequence + 1) & 0xffff;
  return ((BigInt(Math.max(0, Math.floor(createdAtMs))) << 16n) | BigInt(sequence)).toString();
}

/**
 * The text that orders ids: numeric ids (Mastodon's) left-padded to 20 digits so they
 * compare as numbers; other ids (e.g. Pleroma's flake ids) compare as text.
 */
export function sortKeyOf(id: string): string {
  return /^\d{1,20}$/.test(id) ? id.padStart(20, '0') : id;
}

/**
 * The interleaving part of an experiment's JSON Lines export: one line per user who was
 * served an interleaved list (or has a credited click), with the items each ranker
 * contributed to their lists and the accepted clicks credited to each, keyed by variant name:
 *
 *   {"type":"interleaving","user_id":"…","team_impressions":{"fresh":8,"control":8},"credited_clicks":{"fresh":2,"control":0}}
 *
 * These are exactly the per-user counts the online analysis reads (interleaving-result.ts),
 * so `recsvc experiment analyze --file` gives the same preference share, interval and
 * p-value as the server.
 */
import { MAX_COUNT } from '../io/count-fields.js';
import { interleavingTeams, type InterleavingDesign, type UserTeamCounts } from './interleaving-result.js';

/** How a line reports a problem (export-format.ts's LineContext): `file:line:column: message`. */
export interface LineFailure {
  fail(message: string, key?: string): Error;
}

type Json = Record<string, unknown>;
/** What the lines need of the experiment: its variants (which name the teams) and its type. */
type TeamsDesign = Pick<InterleavingDesign, 'variants'> & { id?: unknown; type?: unknown };

/** The `{"type":"interleaving",...}` line of one user (teams from the design: A under test, B control). */
export function interleavingLine(design: TeamsDesign, userId: string | number, counts: UserTeamCounts): string {
  const teams = interleavingTeams(design);
  return JSON.stringify({
    type: 'interleaving',
    user_id: userId,
    team_impressions: { [teams.a]: counts.impressionsA, [teams.b]: counts.impressionsB },
    credited_clicks: { [teams.a]: counts.a, [teams.b]: counts.b },
  });
}

/** Collects the interleaving lines of an export (one per user) into the analysis's per-user counts. */
export class InterleavingLines {
  private readonly seen = new Set<string>();
  private readonly users: UserTeamCounts[] = [];
  private readonly teams: { a: string; b: string };

  constructor(private readonly design: TeamsDesign) {
    this.teams = interleavingTeams(design);
  }

  /** Adds one line; throws through `ctx` on a second line for a user or a bad count. */
  add(ctx: LineFailure, record: Json): void {
    if (this.design.type !== 'interleaving')
      throw ctx.fail('an interleaving line in the export of an experiment not of type interleaving', 'type');
    const id = record.user_id;
    if (typeof id !== 'string' && typeof id !== 'number') throw ctx.fail('missing field "user_id"');
    if (this.seen.has(String(id))) throw ctx.fail(`a second interleaving line for user ${JSON.stringify(id)}`, 'user_id');
    this.seen.add(String(id));
    const impressions = this.pair(ctx, record, 'team_impressions');
    const clicks = this.pair(ctx, record, 'credited_clicks');
    this.users.push({ impressionsA: impressions[0], impressionsB: impressions[1], a: clicks[0], b: clicks[1] });
  }

  /** Users with an interleaving line, in file order. */
  entries(): readonly UserTeamCounts[] {
    return this.users;
  }

  /** `{<variant>: count}` for exactly the two rankers: [under test, control]. */
  private pair(ctx: LineFailure, record: Json, key: string): [number, number] {
    const value = record[key];
    const names = [this.teams.a, this.teams.b];
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw ctx.fail(`${key} must be an object of variant name to count (${names.join(', ')})`, key);
    const unknown = Object.keys(value).find((name) => !names.includes(name));
    if (unknown !== undefined) throw ctx.fail(`${key}: unknown variant ${JSON.stringify(unknown)} (expected ${names.join(', ')})`, key);
    return names.map((name) => {
      const count = (value as Json)[name] ?? 0;
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > MAX_COUNT)
        throw ctx.fail(`${key}.${name} must be a whole number from 0 to ${MAX_COUNT} (got ${JSON.stringify(count)})`, key);
      return count;
    }) as [number, number];
  }
}

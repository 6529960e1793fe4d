/** The records of `recsvc import`: CSV rows and JSON Lines values turned into API items (docs/import.md). */
import { describe, expect, it } from 'vitest';
import { canonicalHeader, checkCsvHeader, itemFromCsv, itemFromJson, RowError } from '../../../src/import/import-rows.js';
import { EARLIEST_INTERACTION_MS, interactionTime } from '../../../src/interactions/interaction-time.js';

describe('CSV headers', () => {
  it('take the columns in any order and refuse unknown, missing or repeated ones', () => {
    expect(() => checkCsvHeader('interactions', ['post_id', 'user_id', 'action_type'])).not.toThrow();
    expect(() => checkCsvHeader('interactions', ['user_id', 'post_id', 'action'])).toThrow(/unknown column "action"/);
    expect(() => checkCsvHeader('posts', ['id', 'created_at', 'content'])).toThrow(/missing column "account_id"/);
    expect(() => checkCsvHeader('interactions', ['user_id', 'post_id', 'action_type', 'user_id'])).toThrow(/appears twice/);
  });

  it('read `action` as `action_type`, as the files of `recsvc eval` name it', () => {
    const header = canonicalHeader('interactions', ['user_id', 'post_id', 'action', 'created_at']);
    expect(header).toEqual(['user_id', 'post_id', 'action_type', 'created_at']);
    expect(() => checkCsvHeader('interactions', header)).not.toThrow();
    expect(() => checkCsvHeader('interactions', canonicalHeader('interactions', ['user_id', 'post_id', 'action', 'action_type']))).toThrow(
      /appears twice/,
    );
  });
});

describe('CSV rows', () => {
  it('make an interaction, leaving an empty created_at out', () => {
    expect(itemFromCsv('interactions', { user_id: 'u', post_id: 'p', action_type: 'favorite', created_at: '' })).toEqual({
      user_id: 'u',
      post_id: 'p',
      action_type: 'favorite',
    });
    expect(() => itemFromCsv('interactions', { user_id: 'u', post_id: '', action_type: 'favorite' })).toThrow(RowError);
  });

  it('make a Mastodon status: author from its columns, tags split on spaces or commas without their #', () => {
    const status = itemFromCsv('posts', {
      id: 'p1',
      created_at: '2025-01-01T00:00:00Z',
      account_id: 'a1',
      content: '<p>hi</p>',
      tags: '#rust, cats',
      sensitive: 'yes',
      language: '',
    });
    expect(status).toEqual({
      id: 'p1',
      created_at: '2025-01-01T00:00:00Z',
      content: '<p>hi</p>',
      account: { id: 'a1', username: 'a1', acct: 'a1' },
      tags: [{ name: 'rust' }, { name: 'cats' }],
      sensitive: true,
    });
    expect(() => itemFromCsv('posts', { id: 'p', created_at: 'x', account_id: 'a', content: 'c', sensitive: 'maybe' })).toThrow(
      /sensitive/,
    );
  });
});

describe('JSON Lines values', () => {
  it('are taken as the API takes them, objects only', () => {
    expect(itemFromJson('interactions', { user_id: 'u', action_type: 'favorite' })).toEqual({ user_id: 'u', action_type: 'favorite' });
    expect(itemFromJson('interactions', { user_id: 'u', action: 'reblog' })).toEqual({ user_id: 'u', action_type: 'reblog' });
    expect(itemFromJson('posts', { id: 'p', action: 'x' })).toEqual({ id: 'p', action: 'x' });
    expect(() => itemFromJson('posts', [1])).toThrow(/an array/);
    expect(() => itemFromJson('posts', null)).toThrow(/null/);
    expect(() => itemFromJson('interactions', 'x')).toThrow(/string/);
  });
});

describe('interactionTime', () => {
  const now = Date.UTC(2026, 0, 10, 12);
  it('is the receipt time without a given one, the given one otherwise, now for one ahead within 5 minutes', () => {
    expect(interactionTime(undefined, now)).toEqual({ atMs: now });
    expect(interactionTime(now - 1000, now)).toEqual({ atMs: now - 1000 });
    expect(interactionTime(now + 5 * 60_000, now)).toEqual({ atMs: now });
    expect(interactionTime(EARLIEST_INTERACTION_MS, now)).toEqual({ atMs: EARLIEST_INTERACTION_MS });
  });
  it('refuses one further ahead, before 1990, or not a number', () => {
    expect(interactionTime(now + 5 * 60_000 + 1, now)).toHaveProperty('refused');
    expect(interactionTime(EARLIEST_INTERACTION_MS - 1, now)).toHaveProperty('refused');
    expect(interactionTime(Number.NaN, now)).toHaveProperty('refused');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { linkUrl } from '../posts/link-paginator.js';
import { experimentBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
let t: TestApp;
let admin: Record<string, string>;

beforeEach(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
});
afterEach(async () => t.close());

/** Creates `count` experiments; returns their ids in creation order. */
async function createMany(count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: experimentBody({ name: `experiment ${i}` }) });
    expect(res.statusCode).toBe(201);
    ids.push(res.json().data.id);
  }
  return ids;
}

/** Follows rel="next" from `path`; returns each page's ids. */
async function walk(path: string): Promise<number[][]> {
  const pages: number[][] = [];
  for (let url: string | undefined = path; url !== undefined;) {
    if (pages.length > 30) throw new Error('no end');
    const res = await t.app.inject({ url, headers: admin });
    expect(res.statusCode, res.body).toBe(200);
    pages.push((res.json().data as { id: number }[]).map((e) => e.id));
    const next = linkUrl(res.headers.link as string | undefined, 'next');
    url = next === undefined ? undefined : `${new URL(next).pathname}${new URL(next).search}`;
  }
  return pages;
}

describe('GET /api/v1/analytics/experiments: a bounded, paged list', () => {
  it('returns at most 100 by default, and rel="next" leads to the rest', async () => {
    const ids = await createMany(103);
    const pages = await walk(BASE);
    expect(pages.map((p) => p.length)).toEqual([100, 3]);
    expect(pages.flat()).toEqual(ids);
  });

  it('a paginator with a small limit and a status filter visits every match once, in id order, and stops', async () => {
    const ids = await createMany(12);
    const started = ids.filter((_, i) => i % 3 === 0);
    for (const id of started)
      expect((await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin })).statusCode).toBe(200);
    const pages = await walk(`${BASE}?status=DRAFT&limit=3`);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 2]);
    expect(pages.flat()).toEqual(ids.filter((id) => !started.includes(id)));
  });

  it('bounds limit to 1..100 and min_id to integers, 400 naming the field', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=2.5', 'limit'],
      ['min_id=-1', 'min_id'],
      ['min_id=x', 'min_id'],
    ] as const) {
      const res = await t.app.inject({ url: `${BASE}?${query}`, headers: admin });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().field, query).toBe(field);
    }
  });
});

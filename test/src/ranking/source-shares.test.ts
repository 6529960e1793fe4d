/**
 * The source shares (src/ranking/source-shares.ts): no instance and no author takes more than
 * its share of a list while other items are available; the passed-over fill what is left.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { DEFAULT_SOURCE_SHARES, sourceSharesFromEnv, takeWithinShares, type SourcedItem } from '../../../src/ranking/index.js';

interface Item extends SourcedItem {
  readonly id: string;
}

const item = (id: string, sourceInstance: string, accountId = `author-${id}`): Item => ({ id, sourceInstance, accountId });
const ids = (items: readonly Item[]) => items.map((i) => i.id);

describe('takeWithinShares', () => {
  it('caps an instance at ceil(share · n) while other instances have items', () => {
    // n = 8, instance share 0.25: at most 2 of evil.example among the 8 while others are left.
    const items = [
      ...Array.from({ length: 6 }, (_, i) => item(`e${i}`, 'evil.example')),
      ...Array.from({ length: 6 }, (_, i) => item(`h${i}`, `honest${i}.example`)),
    ];
    expect(ids(takeWithinShares(items, 8))).toEqual(['e0', 'e1', 'h0', 'h1', 'h2', 'h3', 'h4', 'h5']);
  });

  it('caps an author at ceil(share · n), across instances', () => {
    const items = [
      item('a1', 'one.example', 'alice'),
      item('a2', 'two.example', 'alice'),
      item('a3', 'three.example', 'alice'),
      item('b1', 'four.example', 'bob'),
      item('c1', 'five.example', 'carol'),
    ];
    // n = 3, author share 0.02: one post per author.
    expect(ids(takeWithinShares(items, 3))).toEqual(['a1', 'b1', 'c1']);
    // A larger author share lets alice have two of the three (ceil(0.5 · 3) = 2).
    expect(ids(takeWithinShares(items, 3, { instance: 1, author: 0.5 }))).toEqual(['a1', 'a2', 'b1']);
  });

  it('fills with the passed-over items, in their order, once nothing else is left', () => {
    const items = [
      item('e0', 'evil.example'),
      item('e1', 'evil.example'),
      item('e2', 'evil.example'),
      item('h0', 'honest.example'),
      item('e3', 'evil.example'),
    ];
    // n = 4: cap 1 per instance; e0 and h0 are taken, then e1, e2, e3 fill the rest in order, after them.
    expect(ids(takeWithinShares(items, 4))).toEqual(['e0', 'h0', 'e1', 'e2']);
    // A list of one source is returned whole, in its order.
    const single = Array.from({ length: 10 }, (_, i) => item(`s${i}`, 'one.example', 'same-author'));
    expect(ids(takeWithinShares(single, 10))).toEqual(ids(single));
  });

  it("does not cap the service's own posts (instance '') by instance, only by author", () => {
    const own = Array.from({ length: 10 }, (_, i) => item(`o${i}`, ''));
    const others = Array.from({ length: 10 }, (_, i) => item(`x${i}`, 'x.example'));
    expect(ids(takeWithinShares([...own, ...others], 8))).toEqual(ids(own.slice(0, 8)));
    const oneAuthor = Array.from({ length: 4 }, (_, i) => item(`o${i}`, '', 'admin'));
    expect(ids(takeWithinShares([...oneAuthor, ...others], 4))).toEqual(['o0', 'x0', 'o1', 'o2']);
  });

  it('takes at most n, none for n = 0, and hands back the items themselves', () => {
    const items = Array.from({ length: 5 }, (_, i) => item(`h${i}`, `i${i}.example`));
    expect(takeWithinShares(items, 0)).toEqual([]);
    expect(takeWithinShares(items, 3)).toHaveLength(3);
    expect(takeWithinShares(items, 50)).toEqual(items);
    expect(takeWithinShares(items, 2)[0]).toBe(items[0]);
  });

  it('keeps one post of a 20-post page per author and 5 per instance by default', () => {
    expect(DEFAULT_SOURCE_SHARES).toEqual({ instance: 0.25, author: 0.02 });
    const flood = Array.from({ length: 100 }, (_, i) => item(`e${i}`, 'evil.example', `evil${i % 50}`));
    const honest = Array.from({ length: 30 }, (_, i) => item(`h${i}`, `honest${i % 10}.example`, `writer${i}`));
    const page = takeWithinShares([...flood, ...honest], 20);
    expect(page.filter((p) => p.sourceInstance === 'evil.example')).toHaveLength(5);
    expect(new Set(page.map((p) => p.accountId)).size).toBe(20);
  });
});

describe('the operator sets the shares (RECSVC_INSTANCE_SHARE, RECSVC_AUTHOR_SHARE)', () => {
  it('keeps the defaults when unset and takes fractions or percentages', () => {
    expect(sourceSharesFromEnv({})).toEqual(DEFAULT_SOURCE_SHARES);
    expect(sourceSharesFromEnv({ RECSVC_INSTANCE_SHARE: '0.5', RECSVC_AUTHOR_SHARE: '10%' })).toEqual({ instance: 0.5, author: 0.1 });
    expect(sourceSharesFromEnv({ RECSVC_INSTANCE_SHARE: '100%', RECSVC_AUTHOR_SHARE: ' 1 ' })).toEqual({ instance: 1, author: 1 });
  });

  it('refuses zero, more than all, negative and non-numbers, naming the variable', () => {
    for (const bad of ['0', '0%', '1.5', '150%', '-0.1', 'abc', '25 %', '0x1']) {
      expect(() => sourceSharesFromEnv({ RECSVC_INSTANCE_SHARE: bad })).toThrow(InputError);
      expect(() => sourceSharesFromEnv({ RECSVC_AUTHOR_SHARE: bad })).toThrow(/^RECSVC_AUTHOR_SHARE must be a share/);
    }
  });

  it('a larger instance share lets one instance take more of a page', () => {
    const flood = Array.from({ length: 100 }, (_, i) => item(`e${i}`, 'evil.example', `evil${i % 50}`));
    const honest = Array.from({ length: 30 }, (_, i) => item(`h${i}`, `honest${i % 10}.example`, `writer${i}`));
    const page = takeWithinShares([...flood, ...honest], 20, sourceSharesFromEnv({ RECSVC_INSTANCE_SHARE: '50%' }));
    expect(page.filter((p) => p.sourceInstance === 'evil.example')).toHaveLength(10);
  });
});

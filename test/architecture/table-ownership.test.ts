/**
 * Each feature's SQL names only its own tables, or another feature's that it declares below
 * (a read model it reads, or the user's rows that privacy erasure deletes), with why. A table's
 * owner is the folder whose `*.tables.ts` lists it; a feature is a folder of server/ (the
 * platform's folders each count as one). The names are read from the source: kysely calls
 * (`selectFrom('posts')`, `innerJoin('accounts as a', …)`, …) and raw SQL (`FROM`, `JOIN`, `INTO`,
 * `UPDATE`, `EXISTS` followed by a table). Migrations are left out: they are frozen history.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../../server/', import.meta.url));

/** Another feature's tables each feature's SQL names: table → why. Nothing else may be named. */
const DECLARED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  experiments: {
    interactions:
      "read model: cold start and pre-experiment engagement at assignment, joined in SQL with the assignments (one statement over every assigned user; a port would read each user's history apart)",
    feedback: 'read model: cold start at assignment, joined in SQL with the assignments (as interactions)',
  },
  fasp: {
    accounts: 'read model: the accounts shared with subscribed FASPs',
    account_instance_ids: 'read model: the instance ids of shared accounts',
    posts: 'read model: the content shared with subscribed FASPs',
    interactions: 'read model: the engagement counted for shared accounts',
  },
  interactions: {
    posts:
      "read model: trending's engagements of the window's posts, post_id IN (posts created since), one statement driven by the posts' time index (handing the window's ids across would list every post of it)",
  },
  'ranking-state': {
    accounts: 'read model: the ranking fit evaluates on stored posts and their authors',
    interactions: "read model: the ranking fit's held-out interactions",
    posts: 'read model: the ranking fit evaluates on stored posts',
  },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'migrations' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** server/posts/… → posts; server/platform/auth/… → platform/auth; server/features.ts → undefined (the composition root). */
function featureOf(path: string): string | undefined {
  const parts = relative(SERVER, path).split('/');
  if (parts.length < 2) return undefined;
  return parts[0] === 'platform' ? `platform/${parts[1]}` : parts[0];
}

const files = sourceFiles(SERVER);

/** table → owning feature, from the `…Tables` interfaces of the `*.tables.ts` files. */
function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const path of files.filter((f) => f.endsWith('.tables.ts'))) {
    const text = readFileSync(path, 'utf8');
    for (const block of text.matchAll(/export (?:interface \w+Tables(?: extends [^{]*)? \{|type \w+Tables = \{)([^}]*)\}/g)) {
      for (const key of block[1]!.matchAll(/^\s*([a-z_0-9]+)\s*:/gm)) {
        if (!owners.has(key[1]!)) owners.set(key[1]!, featureOf(path)!);
      }
    }
  }
  return owners;
}

/** The table names a file's code (comments left out) names. */
function tablesNamed(path: string): Set<string> {
  const code = readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const names = new Set<string>();
  const kysely =
    /\.(?:selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*\[?\s*'([a-z_0-9]+)/g;
  for (const match of code.matchAll(kysely)) names.add(match[1]!);
  for (const match of code.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE|EXISTS)\s+([a-z_][a-z_0-9]*)/g)) names.add(match[1]!);
  return names;
}

const owners = tableOwners();
/** "feature table" → the files of the feature that name it. */
const foreign = new Map<string, string[]>();
let ownUses = 0;
for (const path of files) {
  const feature = featureOf(path);
  if (feature === undefined || path.endsWith('.tables.ts')) continue;
  for (const table of tablesNamed(path)) {
    const owner = owners.get(table);
    if (owner === undefined) continue;
    if (owner === feature) ownUses += 1;
    else foreign.set(`${feature} ${table}`, [...(foreign.get(`${feature} ${table}`) ?? []), relative(SERVER, path)]);
  }
}

describe('table ownership', () => {
  it("reads every feature's tables and the SQL that names them", () => {
    expect(owners.get('posts')).toBe('posts');
    expect(owners.get('tokens')).toBe('platform/auth');
    expect(owners.get('experiment_user_counts')).toBe('experiments');
    expect(owners.size).toBeGreaterThan(30);
    expect(ownUses).toBeGreaterThan(50);
  });

  it('finds no feature naming a table it neither owns nor declares', () => {
    const undeclared = [...foreign]
      .filter(([key]) => {
        const [feature, table] = key.split(' ') as [string, string];
        return DECLARED[feature]?.[table] === undefined;
      })
      .map(([key, paths]) => `${key} (${paths.join(', ')})`);
    expect(undeclared).toEqual([]);
  });

  it('declares nothing that is not named (the list stays true)', () => {
    const stale = Object.entries(DECLARED).flatMap(([feature, tables]) =>
      Object.keys(tables)
        .filter((table) => !foreign.has(`${feature} ${table}`))
        .map((table) => `${feature} ${table}`),
    );
    expect(stale).toEqual([]);
  });

  it('declares only tables that another feature owns', () => {
    const wrong = Object.entries(DECLARED).flatMap(([feature, tables]) =>
      Object.keys(tables)
        .filter((table) => owners.get(table) === undefined || owners.get(table) === feature)
        .map((table) => `${feature} ${table}`),
    );
    expect(wrong).toEqual([]);
  });
});

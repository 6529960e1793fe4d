/**
 * The manual keeps up with the code (issue 26): README.md introduces and docs/ explains, so
 * what used to be checked by reading the README is checked across README.md and docs/**.
 * Every environment variable the service or the CLI reads is documented somewhere, every
 * dependency in package.json says why it is there (docs/development.md), and every relative
 * link of the manual reaches a file and, for a page, a heading that exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

const ROOT = REPO_ROOT.replace(/\/$/, '');

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, keep));
    else if (keep(entry.name)) out.push(path);
  }
  return out;
}

const pages = [join(ROOT, 'README.md'), ...filesUnder(join(ROOT, 'docs'), (n) => n.endsWith('.md'))];
const manual = pages.map((p) => readFileSync(p, 'utf8')).join('\n');

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*$/.exec(line);
    if (heading?.[1]) anchors.add(slug(heading[1]));
  }
  return anchors;
}

describe('the manual (README.md and docs/)', () => {
  it('names every RECSVC_ environment variable the service and the CLI read', () => {
    const sources = ['src', 'server', 'commands'].flatMap((d) => filesUnder(join(ROOT, d), (n) => n.endsWith('.ts')));
    const names = new Set<string>();
    for (const file of sources)
      for (const m of readFileSync(file, 'utf8').matchAll(/(?<![A-Z_])RECSVC_[A-Z0-9_]*[A-Z0-9]/g)) names.add(m[0]);
    expect(names.size).toBeGreaterThan(40);
    const undocumented = [...names].filter((name) => !new RegExp(`\\b${name}\\b`).test(manual)).sort();
    expect(undocumented).toEqual([]);
  });

  it('says why each dependency of package.json is there (docs/development.md)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const development = readFileSync(join(ROOT, 'docs', 'development.md'), 'utf8');
    const section = development.slice(development.indexOf('## Dependencies, and why each is there'));
    expect(section.length).toBeGreaterThan(100);
    const rows = section.split('\n').filter((line) => line.startsWith('| '));
    const named = new Set(rows.flatMap((row) => (row.split('|')[1] ?? '').split(',').map((name) => name.trim())));
    const missing = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)].filter((name) => !named.has(name)).sort();
    expect(missing).toEqual([]);
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] ?? '';
        if (/^[a-z]+:/.test(target)) continue; // http(s), mailto
        const [file = '', anchor] = target.split('#');
        const path = file === '' ? page : join(dirname(page), file);
        if (!existsSync(path)) {
          broken.push(`${relative(ROOT, page)}: ${target}`);
          continue;
        }
        if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(readFileSync(path, 'utf8')).has(anchor)) {
          broken.push(`${relative(ROOT, page)}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

/**
 * The documentation reaches the index wherever the code runs from: the package root is found
 * from server/rag (vitest) and from dist/server/rag (the built, installed package), and
 * README.md and docs/ (with its subfolders, e.g. docs/decisions/) are in what npm packs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationFiles, findPackageRoot, loadDocumentation } from '../../../server/rag/docs-corpus.js';
import { REPO_ROOT } from '../../helpers/cli.js';

const ROOT = REPO_ROOT.replace(/\/$/, '');

describe('documentation corpus', () => {
  it('finds the package root from the source and from the built location', () => {
    expect(findPackageRoot()).toBe(ROOT);
    expect(findPackageRoot(join(ROOT, 'dist', 'server', 'rag'))).toBe(ROOT);
  });

  it('skips a package.json that is not this package', () => {
    const outer = mkdtempSync(join(tmpdir(), 'recsvc-docs-'));
    writeFileSync(join(outer, 'package.json'), JSON.stringify({ name: 'recsvc' }));
    const inner = join(outer, 'node_modules', 'other');
    mkdirSync(join(inner, 'lib'), { recursive: true });
    writeFileSync(join(inner, 'package.json'), JSON.stringify({ name: 'other' }));
    expect(findPackageRoot(join(inner, 'lib'))).toBe(outer);
  });

  it('reads README.md first, then every docs/**/*.md by path, into chunks named by path and heading', () => {
    const files = documentationFiles(ROOT);
    expect(files[0]).toBe('README.md');
    expect(files).toContain('docs/architecture.md');
    expect(files).toContain('docs/api.md');
    // Pages in subfolders are indexed too: the decision records.
    expect(files).toContain('docs/decisions/0001-experiment-ids-are-integers.md');
    expect(files.slice(1)).toEqual([...files.slice(1)].sort());
    expect(files.every((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')))).toBe(true);
    const chunks = loadDocumentation(ROOT);
    expect(new Set(chunks.map((c) => c.source.type === 'doc' && c.source.path))).toEqual(new Set(files));
    expect(chunks.some((c) => c.source.type === 'doc' && c.source.path === 'docs/api.md' && c.source.heading.endsWith('Rate limits'))).toBe(
      true,
    );
  });

  it('finds pages at any depth under docs/, and nothing that is not markdown', () => {
    const root = mkdtempSync(join(tmpdir(), 'recsvc-tree-'));
    mkdirSync(join(root, 'docs', 'decisions', 'old'), { recursive: true });
    writeFileSync(join(root, 'README.md'), '# R\n\nIntro.\n');
    writeFileSync(join(root, 'docs', 'b.md'), '# B\n\nText.\n');
    writeFileSync(join(root, 'docs', 'a.txt'), 'not markdown');
    writeFileSync(join(root, 'docs', 'decisions', '0001-x.md'), '# 0001. X\n\nWhy.\n');
    writeFileSync(join(root, 'docs', 'decisions', 'old', '0000-y.md'), '# Y\n\nOld.\n');
    expect(documentationFiles(root)).toEqual(['README.md', 'docs/b.md', 'docs/decisions/0001-x.md', 'docs/decisions/old/0000-y.md']);
  });

  it('loads nothing, without failing, where there is no documentation', () => {
    expect(loadDocumentation(mkdtempSync(join(tmpdir(), 'recsvc-empty-')))).toEqual([]);
  });

  it.runIf(existsSync(join(ROOT, 'dist', 'server', 'rag', 'docs-corpus.js')))(
    'loads the README and the docs pages from the built code',
    () => {
      const script = `import('${join(ROOT, 'dist', 'server', 'rag', 'docs-corpus.js')}').then((m) => { const c = m.loadDocumentation(); console.log(JSON.stringify({ root: m.findPackageRoot(), readme: c.filter((x) => x.source.path === 'README.md').length, experiments: c.filter((x) => x.source.path === 'docs/experiments.md').length, decisions: c.filter((x) => x.source.path.startsWith('docs/decisions/')).length })); })`;
      const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as {
        root: string;
        readme: number;
        experiments: number;
        decisions: number;
      };
      expect(out.root).toBe(ROOT);
      expect(out.readme).toBeGreaterThan(10);
      expect(out.experiments).toBeGreaterThan(30);
      expect(out.decisions).toBeGreaterThanOrEqual(10);
    },
  );

  it('README.md and docs/**/*.md are in the package npm publishes', () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }),
    ) as Array<{
      files: Array<{ path: string }>;
    }>;
    expect(packed[0]?.files.map((f) => f.path)).toContain('README.md');
    expect(packed[0]?.files.map((f) => f.path)).toContain('docs/architecture.md');
    expect(packed[0]?.files.map((f) => f.path)).toContain('docs/decisions/0001-experiment-ids-are-integers.md');
  }, 60_000);
});

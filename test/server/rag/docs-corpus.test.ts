/**
 * The documentation reaches the index wherever the code runs from: the package root is found
 * from server/rag (vitest) and from dist/server/rag (the built, installed package), and
 * README.md and docs/ are in what npm packs.
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

  it('reads README.md first, then docs/*.md, into chunks named by path and heading', () => {
    const files = documentationFiles(ROOT);
    expect(files[0]).toBe('README.md');
    expect(files).toContain('docs/architecture.md');
    const chunks = loadDocumentation(ROOT);
    expect(new Set(chunks.map((c) => c.source.type === 'doc' && c.source.path))).toEqual(new Set(files));
    expect(chunks.some((c) => c.source.type === 'doc' && c.source.heading.endsWith('Rate limits'))).toBe(true);
  });

  it('loads nothing, without failing, where there is no documentation', () => {
    expect(loadDocumentation(mkdtempSync(join(tmpdir(), 'recsvc-empty-')))).toEqual([]);
  });

  it.runIf(existsSync(join(ROOT, 'dist', 'server', 'rag', 'docs-corpus.js')))('loads the README from the built code', () => {
    const script = `import('${join(ROOT, 'dist', 'server', 'rag', 'docs-corpus.js')}').then((m) => { const c = m.loadDocumentation(); console.log(JSON.stringify({ root: m.findPackageRoot(), readme: c.filter((x) => x.source.path === 'README.md').length })); })`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { root: string; readme: number };
    expect(out.root).toBe(ROOT);
    expect(out.readme).toBeGreaterThan(50);
  });

  it('README.md and docs/*.md are in the package npm publishes', () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }),
    ) as Array<{
      files: Array<{ path: string }>;
    }>;
    expect(packed[0]?.files.map((f) => f.path)).toContain('README.md');
    expect(packed[0]?.files.map((f) => f.path)).toContain('docs/architecture.md');
  }, 60_000);
});

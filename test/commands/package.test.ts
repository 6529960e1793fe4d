/**
 * What `npm pack` ships (read with `npm pack --dry-run --json --ignore-scripts` over the build
 * `npm test` makes first): the MIT licence text the package declares, a `prepack` that builds,
 * and no source maps (they pointed at .ts files the package does not ship; docs/operations.md).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

interface PackEntry {
  path: string;
  size: number;
}

let files: PackEntry[] = [];
const manifest = JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as { license: string; scripts: Record<string, string> };

beforeAll(async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT });
  files = (JSON.parse(stdout) as [{ files: PackEntry[] }])[0].files;
}, 60_000);

describe('the npm package', () => {
  it('ships the MIT licence text that package.json declares', () => {
    expect(manifest.license).toBe('MIT');
    expect(files.map((f) => f.path)).toContain('LICENSE');
    const text = readFileSync(`${REPO_ROOT}LICENSE`, 'utf8');
    expect(text.startsWith('MIT License')).toBe(true);
    expect(text).toContain('Permission is hereby granted, free of charge, to any person obtaining a copy');
  });

  it('builds before packing, so a pack never ships a stale or missing dist', () => {
    expect(manifest.scripts.prepack).toBe('npm run build');
    expect(files.map((f) => f.path)).toContain('dist/commands/run.js');
  });

  it('ships no source maps and no references to them', () => {
    expect(files.filter((f) => f.path.endsWith('.map')).map((f) => f.path)).toEqual([]);
    const run = readFileSync(`${REPO_ROOT}dist/commands/run.js`, 'utf8');
    expect(run).not.toContain('sourceMappingURL');
    expect(files.filter((f) => f.path.endsWith('.ts')).map((f) => f.path)).toEqual([]);
  });
});

/**
 * The service's own documentation as RAG chunks: README.md and every .md under docs/ of the installed
 * package, read at start from the package root (found from this module's location, so the
 * same code works from server/ under vitest and from dist/server/ when installed). npm
 * always ships README.md; docs/ ships when package.json's `files` lists it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Chunk } from '../../src/rag/chunk.types.js';
import { chunkMarkdown } from '../../src/rag/chunking.js';

const PACKAGE_NAME = 'recsvc';

/** The nearest directory at or above `start` holding this package's package.json. */
export function findPackageRoot(start: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  let dir = start;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) return dir;
      } catch {
        // Not ours (or unreadable): keep looking upwards.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The documentation files of a package root, as paths relative to it: README.md first (the
 * introduction), then every .md under docs/, at any depth, by path (the topic pages and docs/decisions/).
 */
export function documentationFiles(root: string): string[] {
  const files = existsSync(join(root, 'README.md')) ? ['README.md'] : [];
  return files.concat(markdownUnder(root, 'docs'));
}

/** The .md files under `dir` (relative to `root`), at any depth, sorted by path. */
function markdownUnder(root: string, dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  const found: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...markdownUnder(root, path));
    else if (entry.isFile() && entry.name.endsWith('.md')) found.push(path);
  }
  return found.sort();
}

/** Every documentation chunk of the package at `root` (none when it cannot be found). */
export function loadDocumentation(root: string | undefined = findPackageRoot()): Chunk[] {
  if (root === undefined) return [];
  return documentationFiles(root).flatMap((path) => chunkMarkdown(path, readFileSync(join(root, path), 'utf8')));
}

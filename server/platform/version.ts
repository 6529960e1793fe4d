/** The package version, read once from package.json (X-Service-Version, /api/v1/health). */
import { existsSync, readFileSync } from 'node:fs';

/** Works from the sources (server/platform/) and from the build (dist/server/platform/). */
function readPackageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    const url = new URL(relative, import.meta.url);
    if (existsSync(url)) {
      const pkg = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'recsvc' && pkg.version) return pkg.version;
    }
  }
  return '0.0.0';
}

export const SERVICE_VERSION: string = readPackageVersion();
export const API_VERSION = 'v1';

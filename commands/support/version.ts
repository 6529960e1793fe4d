/** The package version for `--version` (read without loading the server). */
export { SERVICE_VERSION } from '../../server/platform/version.js';

import fs from 'node:fs';
import path from 'node:path';

/**
 * The project root, found by walking up from this file. The same code runs from `engine/` (tests, tsx)
 * and from `dist/engine/` (npm start, the CLI), so a fixed number of `..` would be wrong in one of them.
 */
function findProjectRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'schemas'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the engine's project root above ${start}`);
    dir = parent;
  }
}

export const PROJECT_ROOT = findProjectRoot(__dirname);
export const SCHEMAS_DIR = path.join(PROJECT_ROOT, 'schemas');
export const CONTRACT_SCHEMAS_DIR = path.join(SCHEMAS_DIR, 'contract');
export const MAPPINGS_DIR = path.join(PROJECT_ROOT, 'mappings');

/** The engine's own version, from package.json (shown by --version and in the OpenAPI document). */
export function engineVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

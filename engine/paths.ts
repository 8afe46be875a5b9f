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

/** The nearest folder at or above `dir` that holds a package.json: the project a file belongs to. */
function projectOf(dir: string): string | undefined {
  for (let current = dir; ; current = path.dirname(current)) {
    if (fs.existsSync(path.join(current, 'package.json'))) return current;
    if (path.dirname(current) === current) return undefined;
  }
}

/**
 * How a file the engine writes (a mapping, a test file) names one of the engine's schemas for editors:
 * by a path relative to the file when the schema is inside the file's own project (the engine's
 * checkout, or the project's node_modules), a path that holds wherever the project is copied; else by
 * the schema's published address (its $id), since a path from a folder outside any project into
 * wherever the engine happens to be installed holds only on that machine.
 */
export function schemaReference(fromFile: string, schemaFile: string, published: string): string {
  const from = path.dirname(path.resolve(fromFile));
  const project = projectOf(from);
  const inside = project !== undefined && !path.relative(project, schemaFile).startsWith('..');
  return inside ? path.relative(from, schemaFile).split(path.sep).join('/') : published;
}

/** The engine's own version, from package.json (shown by --version and in the OpenAPI document). */
export function engineVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

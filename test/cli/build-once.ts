import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * vitest global setup: the CLI tests run the real binary from dist/, so dist/ must match the sources.
 * `npm test` builds first (pretest); a bare `npx vitest run` gets a build here when dist/ is stale.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const BINARY = path.join(ROOT, 'dist', 'engine', 'cli', 'main.js');
/**
 * tsc builds incrementally (tsconfig.json): it writes only the outputs that changed, and this record of
 * the build each time it built anything, so the record's time, not the binary's, says how fresh dist/ is.
 */
const BUILD_RECORD = path.join(ROOT, 'dist', '.tsbuildinfo');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  const built = fs.existsSync(BINARY) && fs.existsSync(BUILD_RECORD) ? fs.statSync(BUILD_RECORD).mtimeMs : 0;
  // Everything tsconfig.json compiles: the engine, the examples and the bench harness (bench-quick runs dist/bench).
  const sources = Math.max(...['engine', 'examples', 'bench'].map((folder) => newestSource(path.join(ROOT, folder))));
  if (built < sources) execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(ROOT, 'tsconfig.json')], { stdio: 'inherit' });
  // The studio's page is bundled apart (esbuild), from studio/src: rebuilt when a source is newer than the bundle.
  const bundle = path.join(ROOT, 'dist', 'studio', 'app.js');
  const bundled = fs.existsSync(bundle) ? fs.statSync(bundle).mtimeMs : 0;
  const pageSources = Math.max(...fs.readdirSync(path.join(ROOT, 'studio', 'src')).map((name) => fs.statSync(path.join(ROOT, 'studio', 'src', name)).mtimeMs));
  if (bundled < pageSources) execFileSync(process.execPath, [path.join(ROOT, 'studio', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
}

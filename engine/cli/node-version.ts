import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Imported first by main.ts, before any module that needs Node.js 24 (compile-cache.ts calls
 * module.enableCompileCache, which older Nodes lack), and only when main.js is the program.
 *
 * On an older `node` in a checkout of the project, the command runs again under the project's Node.js
 * 24 (`.ci/node24`: the registry's binary, fetched once into a cache folder), so `npx adapter-engine …`
 * works as written in every terminal, as `npm start` and `npm test` do. Elsewhere it stops with one line
 * that says what to install. Nothing here may use more than Node.js 18 has.
 */
const WANT = 24;

function rerunUnderNode24(): never {
  const finder = path.join(__dirname, '..', '..', '..', '.ci', 'node24');
  const found = fs.existsSync(finder) ? spawnSync('bash', [finder], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }) : undefined;
  const bin = found?.status === 0 ? found.stdout.trim() : '';
  if (bin === '' || !fs.existsSync(path.join(bin, 'node'))) {
    process.stderr.write(`adapter-engine needs Node.js ${WANT} or newer (this is ${process.versions.node}): install Node.js ${WANT} LTS, or in the project's folder run  export PATH="$(bash .ci/node24):$PATH"\n`);
    process.exit(2);
  }
  // Node's own flags as this run had them (main.js's shebang gives --no-memory-reducer), then `--`: the arguments after it are the command's.
  const child = spawnSync(path.join(bin, 'node'), [...process.execArgv, '--', process.argv[1] ?? '', ...process.argv.slice(2)], { stdio: 'inherit' });
  if (child.signal) process.kill(process.pid, child.signal);
  process.exit(child.status ?? 1);
}

if (Number(process.versions.node.split('.')[0]) < WANT && require.main?.filename === path.join(__dirname, 'main.js')) rerunUnderNode24();

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import Koa from 'koa';
import { createListener } from '../server/listener';
import { createLogger } from '../log';
import { openSqliteStore } from '../outbox/sqlite-store';
import { studioMiddleware } from '../studio/studio-app';
import { openWorkspace } from '../studio/workspace';
import { isTestFileName } from '../testing/test-file';
import { withExampleErp } from './example-erp';
import { out } from './output';
import { collectEnv, envWith, usageError } from './usage';

/**
 * `adapter-engine studio`: the studio on 127.0.0.1 for the integrator at this machine: the mapping
 * files to edit, try and test, with the engine serving them (journal and outbox included). Its outbox
 * lives in a temporary state directory unless --state-dir names one.
 */
interface StudioCliOptions {
  port: string;
  open?: boolean;
  exampleErp?: boolean;
  stateDir?: string;
  env?: Record<string, string>;
}

/** Mapping files: those named, and the .yaml files (not the tests) of each folder named; `mappings/` by default. */
function mappingFiles(given: readonly string[]): string[] {
  const files = (given.length === 0 ? ['mappings'] : given).flatMap((entry) => {
    if (!fs.existsSync(entry)) usageError(`${entry} does not exist`);
    if (!fs.statSync(entry).isDirectory()) return [entry];
    return fs.readdirSync(entry).filter((name) => /\.ya?ml$/.test(name) && !isTestFileName(name)).sort().map((name) => path.join(entry, name));
  });
  if (files.length === 0) usageError('no mapping files: name them, or a folder holding them');
  return files;
}

/** Where a mapping started from the page goes: the first folder named (`mappings/` by default), else the first file's folder. */
function mappingsDir(given: readonly string[], files: readonly string[]): string {
  return (given.length === 0 ? ['mappings'] : given).find((entry) => fs.statSync(entry).isDirectory()) ?? path.dirname(files[0]);
}

function openBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  spawn(opener, [url], { stdio: 'ignore', detached: true }).on('error', () => out.line(`could not start ${opener}; open ${url} yourself`)).unref();
}

async function studio(given: string[], options: StudioCliOptions): Promise<number> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) usageError(`--port takes a port number (0 picks a free one), got "${options.port}"`);
  const files = mappingFiles(given);
  const log = createLogger({ level: 'warn' });
  const stateDir = options.stateDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'adapter-studio-'));
  const erp = await withExampleErp(options.exampleErp, envWith(options.env), { erp: 0, platform: 0 });
  const workspace = openWorkspace({ paths: files, mappingsDir: mappingsDir(given, files), env: erp.env, log, outbox: openSqliteStore(path.resolve(stateDir)) });
  const app = new Koa();
  app.use(studioMiddleware({ sources: workspace, workspace, settle: true, log, loopbackOnly: true }));
  app.use(async (ctx) => {
    ctx.redirect('/studio/');
  });
  app.on('error', (error: Error) => log.error({ err: error }, 'studio request failed'));
  const server = createListener(app.callback());
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/studio/`;
  out.line(`studio on ${url} (${files.length} mapping file${files.length === 1 ? '' : 's'}${erp.url ? `, the example ERP on ${erp.url}` : ''}); Ctrl-C stops it`);
  if (options.open) openBrowser(url);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await workspace.close();
  await erp.close();
  if (!options.stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
  return 0;
}

export function registerStudio(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  program
    .command('studio')
    .summary('edit, try and test mappings in a browser')
    .description('Start the studio on 127.0.0.1: a web page to see each mapping\'s routes and problems, edit it with the engine\'s own diagnostics, run an operation and read its trace, run its tests, read the request journal and decide about the outbox\'s dead letters. It runs the real engine on the files (saving serves them at once).\n\nEvery request that changes something needs the page\'s session token and its origin.')
    .argument('[mappings...]', 'mapping files, or folders of them (default: mappings/)')
    .option('--port <n>', 'port on 127.0.0.1 (0: a free one)', '0')
    .option('--open', 'open the page in the default browser')
    .option('--example-erp', 'start the bundled example ERP and point ERP_URL at it (only when ERP_URL is not set)')
    .option('--state-dir <dir>', 'keep the outbox here (default: a temporary folder removed at the end)')
    .option('-e, --env <NAME=value>', 'set a variable for ${NAME} in the mappings (repeatable)', collectEnv)
    .action((mappings: string[], options: StudioCliOptions) => run(studio(mappings, options)));
}

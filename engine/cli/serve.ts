import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { ROUTES } from '../contract/routes';
import { createEngine } from '../engine/engine';
import { EXIT_CODES } from '../errors';
import { createLogger } from '../log';
import type { Mapping } from '../mapping/model';
import { createHttpApp } from '../server/app';
import { installProcessGuards } from '../server/process-guards';
import { withExampleErp } from './example-erp';
import { loadOrReport } from './mapping-file';
import { err, out } from './output';
import { collectEnv, envWith, usageError } from './usage';

interface ServeOptions {
  port: string;
  host?: string;
  exampleErp?: boolean;
  env?: Record<string, string>;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) usageError(`--port must be a whole number from 0 to 65535, got "${text}"`);
  return port;
}

async function listen(server: http.Server, port: number, host: string | undefined): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') usageError(`port ${port} is already in use; choose another with --port`);
    if (error.code === 'EACCES') usageError(`not allowed to listen on port ${port}; choose a port above 1023 with --port`);
    if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') usageError(`cannot listen on host ${host}: ${error.code}`);
    throw error;
  });
  return server.address() as AddressInfo;
}

async function serve(files: string[], options: ServeOptions): Promise<number> {
  if (files.length === 0) usageError('give at least one mapping file, e.g. adapter-engine serve mappings/example.yaml');
  const port = parsePort(options.port);
  const erp = await withExampleErp(options.exampleErp, envWith(options.env), Number(process.env.ERP_PORT ?? 8081));
  if (erp.url) out.line(`example ERP listening on ${erp.url}`);
  const stopErp = () => erp.close();
  const mappings: Mapping[] = [];
  for (const file of files) {
    const mapping = loadOrReport(file, erp.env);
    if (mapping) mappings.push(mapping);
  }
  if (mappings.length < files.length) {
    await stopErp();
    return EXIT_CODES.FAILED;
  }
  const names = mappings.map((mapping) => mapping.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  // Checked here as well as by the engine so the operator gets a usage error, not a fault.
  if (duplicate !== undefined) {
    await stopErp();
    usageError(`two mappings are named "${duplicate}"; each is served under /<name>, so names must differ`);
  }
  for (const mapping of mappings) {
    const unmapped = ROUTES.length - mapping.operations.size;
    if (unmapped > 0) err.line(`mapping "${mapping.name}": ${unmapped} of ${ROUTES.length} routes unmapped (adapter-engine routes ${mapping.file} lists them)`);
  }

  const log = createLogger();
  const engine = createEngine({ mappings, log });
  const removeGuards = installProcessGuards(engine, log);
  const server = http.createServer(createHttpApp(engine).callback());
  const stopAll = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await engine.close();
    removeGuards();
    await stopErp();
  };
  let address: AddressInfo;
  try {
    address = await listen(server, port, options.host);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const shownHost = !options.host || options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host.includes(':') ? `[${options.host}]` : options.host;
  const base = `http://${shownHost}:${address.port}`;
  if (mappings.length === 1) out.line(`adapter engine (mapping "${mappings[0].name}") listening on ${base}`);
  else for (const mapping of mappings) out.line(`adapter engine (mapping "${mapping.name}") listening on ${base}/${encodeURIComponent(mapping.name)}`);

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await stopAll();
  return EXIT_CODES.OK;
}

export function registerServe(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  program
    .command('serve')
    .summary('serve the contract from one or more mappings')
    .description('Serve every contract route from the given mapping(s). One mapping is served at the root; several are each served under /<mapping name>/... on the same port.\n\nThe mappings are checked first and every error is printed as file:line:col  message.\nExit code 1 when a mapping has errors, 0 when stopped with Ctrl-C or SIGTERM, 2 for usage errors (including a port in use).')
    .argument('<mappings...>', 'mapping files (YAML)')
    .option('-p, --port <port>', 'port to listen on (0 picks a free one)', process.env.PORT ?? '8080')
    .option('-H, --host <host>', 'address to listen on (default: all interfaces)')
    .option('--example-erp', 'also start the bundled example ERP (port ERP_PORT, default 8081) and point ERP_URL at it, unless ERP_URL is set')
    .option('-e, --env <NAME=value>', 'set a variable for ${NAME} in the mappings (repeatable)', collectEnv)
    .action((mappings: string[], options: ServeOptions) => run(serve(mappings, options)));
}

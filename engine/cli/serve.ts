import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { Option, type Command } from 'commander';
import { ROUTES } from '../contract/routes';
import { DEFAULT_JOURNAL_CPU_SHARE } from '../journal/cpu-budget';
import { DEFAULT_JOURNAL_SIZE } from '../journal/journal';
import { EXIT_CODES } from '../errors';
import { createLogger, LOG_LEVELS } from '../log';
import { createSecretRegistry } from '../mapping/secret-registry';
import { servePrimary, serveWorker } from '../server/cluster';
import { adminTokensFrom, type AdminTokens } from '../server/admin-tokens';
import { DEFAULT_SHADOW_CPU_SHARE, ListenError } from '../server/instance';
import { createMappingSource, type MappingSource } from '../server/mapping-source';
import { isExposed, unauthenticatedWarning } from '../server/readiness';
import { serveOne } from '../server/serve-one';
import { boundUrl, createAnnounce, type Announce } from '../server/startup-lines';
import type { ServeSettings } from '../server/settings';
import { withExampleErp } from './example-erp';
import { err } from './output';
import { collectEnv, DEFAULT_STATE_DIR, envWith, stateDirOf, usageError } from './usage';

interface ServeOptions {
  port?: string;
  host?: string;
  adminPort?: string;
  adminHost: string;
  studioWrite?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  tlsClientCa?: string;
  watch?: boolean;
  shutdownTimeout: string;
  workers: string;
  stateDir?: string;
  journalSize?: string;
  journalMaxCpuShare?: string;
  shadowMaxCpuShare?: string;
  exampleErp?: boolean;
  env?: Record<string, string>;
  logLevel?: string;
  codegen: boolean;
  pidFile?: string;
}

function parsePort(text: string, flag: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) usageError(`${flag} must be a whole number from 0 to 65535, got "${text}"`);
  return port;
}

function parseWorkers(text: string): number {
  if (text === 'auto') return os.availableParallelism();
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1 || count > 256) usageError(`--workers must be a whole number from 1 to 256 or "auto", got "${text}"`);
  return count;
}

function adminTokens(): AdminTokens {
  try {
    return adminTokensFrom(process.env);
  } catch (error) {
    return usageError((error as Error).message);
  }
}

/**
 * The quick start's admin token (`--example-erp` with an admin port and no ADMIN_TOKENS or
 * ADMIN_TOKENS_FILE): made up for the run and printed once in the start-up line, so that every doc's
 * `--admin` command works against `npm start` once ADMIN_TOKEN is set to it. A served mapping never gets one.
 */
function exampleAdminTokens(): AdminTokens & { readonly token: string } {
  const token = randomBytes(18).toString('base64url');
  return { token, from: 'the token npm start printed (--example-erp)', current: () => [token] };
}

/** Writes the process's pid for `kill -HUP "$(cat <file>)"`; removed when serve ends. */
function writePidFile(file: string | undefined): () => void {
  if (file === undefined) return () => undefined;
  try {
    fs.writeFileSync(file, `${process.pid}\n`);
  } catch (error) {
    usageError(`--pid-file ${file}: cannot write it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return () => fs.rmSync(file, { force: true });
}

function tlsFiles(options: ServeOptions): ServeSettings['tls'] {
  if (!options.tlsCert && !options.tlsKey) {
    if (options.tlsClientCa) usageError('--tls-client-ca needs --tls-cert and --tls-key: client certificates are asked for during the TLS handshake');
    return undefined;
  }
  if (!options.tlsCert || !options.tlsKey) usageError('--tls-cert and --tls-key go together: give both, or neither to serve plain HTTP');
  return { certFile: options.tlsCert, keyFile: options.tlsKey, clientCaFile: options.tlsClientCa };
}

async function serve(paths: string[], options: ServeOptions): Promise<number> {
  if (paths.length === 0) usageError('give a mapping directory or at least one mapping file, e.g. adapter-engine serve mappings/example.yaml');
  const port = parsePort(options.port ?? process.env.PORT ?? '8080', '--port');
  const adminPort = options.adminPort ?? process.env.ADMIN_PORT;
  if (options.studioWrite && adminPort === undefined) usageError('--studio-write lets the admin port\'s studio retry and drop dead letters; give --admin-port too');
  const tokenGiven = Boolean(process.env.ADMIN_TOKENS || process.env.ADMIN_TOKENS_FILE);
  const example = adminPort !== undefined && options.exampleErp === true && !tokenGiven && !cluster.isWorker ? exampleAdminTokens() : undefined;
  const admin = adminPort === undefined ? undefined : { port: parsePort(adminPort, '--admin-port'), host: options.adminHost, tokens: example ?? adminTokens(), studioWrite: options.studioWrite === true };
  const shutdownTimeoutMs = Number(options.shutdownTimeout);
  if (!Number.isInteger(shutdownTimeoutMs) || shutdownTimeoutMs < 0) usageError(`--shutdown-timeout must be a whole number of milliseconds, got "${options.shutdownTimeout}"`);
  const workers = parseWorkers(options.workers);
  const journalSizeText = options.journalSize ?? process.env.JOURNAL_SIZE ?? String(DEFAULT_JOURNAL_SIZE);
  const journalSize = Number(journalSizeText);
  if (!Number.isInteger(journalSize) || journalSize < 0 || journalSize > 1_000_000) usageError(`--journal-size must be a whole number from 0 to 1000000, got "${journalSizeText}"`);
  const journalShareText = options.journalMaxCpuShare ?? process.env.JOURNAL_MAX_CPU_SHARE ?? String(DEFAULT_JOURNAL_CPU_SHARE);
  const journalMaxCpuShare = Number(journalShareText);
  if (!(journalMaxCpuShare >= 0 && journalMaxCpuShare <= 1)) usageError(`--journal-max-cpu-share must be a number from 0 to 1, got "${journalShareText}"`);
  const shadowShareText = options.shadowMaxCpuShare ?? process.env.SHADOW_MAX_CPU_SHARE ?? String(DEFAULT_SHADOW_CPU_SHARE);
  const shadowMaxCpuShare = Number(shadowShareText);
  if (!(shadowMaxCpuShare >= 0 && shadowMaxCpuShare <= 1)) usageError(`--shadow-max-cpu-share must be a number from 0 to 1, got "${shadowShareText}"`);
  const tls = tlsFiles(options);
  for (const given of paths) if (!fs.existsSync(given)) usageError(`mapping file or directory not found: ${given}`);

  // A worker is this same command, started again by the primary: it serves, and prints nothing.
  const worker = cluster.isWorker;
  // The example ERP pushes to the engine's port as bound (--port 0) and to the mapping that has each push endpoint, under its prefix when there are several.
  let engineUrl: string | undefined;
  let served: { readonly source: MappingSource; readonly prefixed: boolean } | undefined;
  const pushTo = (push: string) => (served && engineUrl ? pushUrl(served, engineUrl, push) : undefined);
  const erp = worker ? { url: undefined, env: envWith(options.env), close: async () => undefined } : await withExampleErp(options.exampleErp, envWith(options.env), {
    erp: Number(process.env.ERP_PORT ?? 8081), platform: Number(process.env.PLATFORM_PORT ?? 8082), pushTo,
  });
  try {
    let source;
    try {
      source = createMappingSource(paths, erp.env, { codegen: options.codegen });
    } catch (error) {
      usageError((error as Error).message);
    }
    // A directory serves each mapping under /<name> even while it holds one file: adding a second must not move the first.
    const prefixed = source.isDirectory || paths.length > 1;
    served = { source, prefixed };
    const initial = await source.load();
    if (initial.states.length === 0) usageError(`no mapping files (*.yaml, *.yml) in ${paths[0]}`);
    const failed = initial.states.filter((state) => !state.last.ok);
    if (failed.length > 0) {
      for (const state of failed) for (const problem of state.last.problems) err.line(problem);
      for (const state of failed) err.line(`${state.file}: not loaded; run "adapter-engine validate ${state.file}" after fixing it`);
      return EXIT_CODES.FAILED;
    }
    // One registry for the engine and its log: what the engine masks in the journal and the outbox, the log masks too.
    const secrets = createSecretRegistry();
    const log = createLogger({ level: options.logLevel, secrets });
    // A worker is started by the primary, which says all of this once.
    const announce: Announce = worker ? () => undefined : createAnnounce(log, process.stderr.isTTY ? (line) => err.line(line) : undefined);
    announce('info', { mappings: initial.mappings.map((mapping) => ({ name: mapping.name, file: mapping.file })) }, `${initial.mappings.length} mapping${initial.mappings.length === 1 ? '' : 's'} loaded: ${initial.mappings.map((mapping) => mapping.name).join(', ')}`);
    for (const mapping of initial.mappings) {
      const unmapped = ROUTES.length - mapping.operations.size;
      if (unmapped > 0) announce('warn', { mapping: mapping.name, unmapped }, `mapping "${mapping.name}": ${unmapped} of ${ROUTES.length} routes unmapped (adapter-engine routes ${mapping.file} lists them)`);
      if (mapping.inbound.auth.type === 'none' && isExposed(options.host)) announce('warn', { mapping: mapping.name }, unauthenticatedWarning(mapping.name, options.host));
    }
    if (example) announce('info', { adminToken: example.token }, `admin token for this run: ${example.token}  (export ADMIN_TOKEN=${example.token} for the adapter-engine commands with --admin; set ADMIN_TOKENS to choose your own)`);
    if (workers > 1 && !worker) announce('info', { workers }, `starting ${workers} worker processes, each serving the port`);
    const stateDir = stateDirOf(options.stateDir);
    const outbox = { stateDir, databaseUrl: process.env.DATABASE_URL || undefined, explicit: stateDir !== DEFAULT_STATE_DIR || Boolean(process.env.DATABASE_URL) };
    const settings: ServeSettings = { source, initial, prefixed, port, host: options.host, tls, admin, watch: options.watch === true, shutdownTimeoutMs, outbox, journalSize, journalMaxCpuShare, shadowMaxCpuShare, log, secrets, announce, listening: (bound) => {
      engineUrl = boundUrl(bound, tls !== undefined);
      const pushesTo = `${engineUrl}${prefixed ? '/<mapping>/push' : '/push'}`;
      if (erp.url) announce('info', { url: erp.url, pushesTo }, `example ERP listening on ${erp.url} (it pushes to ${pushesTo}${prefixed ? ', to the mapping that has the push endpoint' : ''})`);
      if (erp.platformUrl) announce('info', { url: erp.platformUrl }, `platform stand-in listening on ${erp.platformUrl} (what arrived: GET ${erp.platformUrl}/received)`);
    } };
    const removePidFile = worker ? () => undefined : writePidFile(options.pidFile);
    try {
      if (worker) await serveWorker(settings);
      else if (workers > 1) await servePrimary(settings, workers, erp.url || erp.platformUrl ? { ERP_URL: erp.env.ERP_URL, PLATFORM_URL: erp.env.PLATFORM_URL, ERP_PUSH_SECRET: erp.env.ERP_PUSH_SECRET } : {});
      else await serveOne(settings);
    } catch (error) {
      if (error instanceof ListenError) usageError(`${error.message} (--port, --admin-port, --host, --admin-host)`);
      throw error;
    } finally {
      removePidFile();
    }
    return EXIT_CODES.OK;
  } finally {
    await erp.close();
  }
}

/** The push endpoint of this name: of the first mapping served (in file order) that has one, under its prefix when each mapping has one. */
function pushUrl({ source, prefixed }: { readonly source: MappingSource; readonly prefixed: boolean }, base: string, push: string): string | undefined {
  const mapping = source.states().map((state) => state.mapping).find((candidate) => candidate?.pushes.has(push));
  if (!mapping) return undefined;
  return `${base}${prefixed ? `/${encodeURIComponent(mapping.name)}` : ''}/push/${encodeURIComponent(push)}`;
}

export function registerServe(program: Command, run: (work: Promise<number>) => Promise<void>): void {
  program
    .command('serve')
    .summary('serve the contract from mapping files or a directory of them')
    .description([
      'Serve every contract route from the given mapping(s). One mapping file is served at the root; several files, or a directory (every *.yaml / *.yml in it), are each served under /<mapping name>/... on the same port.',
      '',
      'The mappings are checked first and every error is printed as file:line:col  message.',
      'SIGHUP reloads the mappings (--watch also on every change): a file that loads is swapped in between requests; one that does not keeps the last good mapping serving and logs every problem. SIGHUP also reads the --tls-* files again for new connections (files that cannot be used keep the current certificate).',
      'SIGTERM or SIGINT: stop accepting, answer the requests in flight (up to --shutdown-timeout), exit 0.',
      'Events of operations with delivery: outbox are stored in PostgreSQL when DATABASE_URL is set, else in SQLite under --state-dir, before the platform is answered.',
      'Exit code 1 when a mapping has errors at start, 2 for usage errors (including a port in use).',
    ].join('\n'))
    .argument('<mappings...>', 'mapping files (YAML), or one directory of them')
    .option('-p, --port <port>', 'port to listen on for the platform, 0 picks a free one (default: env PORT, else 8080)')
    .option('-H, --host <host>', 'address to listen on (default: all interfaces)')
    .option('--admin-port <port>', 'port of the admin listener: /health/live, /health/ready, /metrics, /openapi.json, /requests, /shadow; all but the health probes need Authorization: Bearer <token> with a token of env ADMIN_TOKENS (comma-separated) or the file ADMIN_TOKENS_FILE; with --example-erp and neither set, a token is made up and printed (default: env ADMIN_PORT, else none)')
    .option('--studio-write', 'the admin port\'s studio (/studio) may retry and drop dead letters (it is read-only without)')
    .option('--admin-host <host>', 'address of the admin listener; all but /health/live and /health/ready need Authorization: Bearer <token> with a token of env ADMIN_TOKENS (comma-separated) or the file ADMIN_TOKENS_FILE', '127.0.0.1')
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (needs --tls-key)')
    .option('--tls-key <file>', 'PEM private key of --tls-cert')
    .option('--tls-client-ca <file>', 'require client certificates signed by this PEM CA (mutual TLS)')
    .option('--watch', 'reload a mapping when its file changes, and add or remove mappings as files appear in or leave the directory')
    .option('--shutdown-timeout <ms>', 'on SIGTERM/SIGINT, longest wait for requests in flight, in milliseconds', '25000')
    .option('--state-dir <dir>', 'where outbox events are kept (SQLite) when DATABASE_URL is not set (default: env ADAPTER_STATE_DIR, else .adapter-state)')
    .option('--journal-size <n>', `requests the journal keeps per mapping (admin /requests, adapter-engine requests); 0 keeps none. Kept in memory, and in the state store when the server has one (default: env JOURNAL_SIZE, else ${DEFAULT_JOURNAL_SIZE})`)
    .option('--journal-max-cpu-share <share>', `share of a CPU the journal may spend keeping successful requests in full, 0 to 1: past it, under load, successes are not kept (failures always are); 1 keeps every request (default: env JOURNAL_MAX_CPU_SHARE, else ${DEFAULT_JOURNAL_CPU_SHARE})`)
    .option('--shadow-max-cpu-share <share>', `shadow candidates (mapping files in shadow/ beside the served ones) run in a thread of their own, between live requests, while the live requests' thread uses less than this share of a CPU, 0 to 1 (default: env SHADOW_MAX_CPU_SHARE, else ${DEFAULT_SHADOW_CPU_SHARE})`)
    .option('--no-codegen', 'run expressions on the closure fast path instead of compiling each to a JavaScript function (same answers; see docs/expressions-compiled.md)')
    .option('--pid-file <file>', 'write the process id to this file (for kill -HUP "$(cat <file>)" to reload); removed when serve ends')
    .option('--workers <n>', 'processes serving the port: a number, or "auto" for one per CPU core', '1')
    .option('--example-erp', 'also start the bundled example ERP (port ERP_PORT, default 8081) and point ERP_URL at it, unless ERP_URL is set; and the platform stand-in (PLATFORM_PORT, default 8082) as PLATFORM_URL, unless that is set')
    .option('-e, --env <NAME=value>', 'set a variable for ${NAME} in the mappings (repeatable)', collectEnv)
    .addOption(new Option('--log-level <level>', 'least severe log lines written; overrides LOG_LEVEL (default info: one line per request and per ERP call)').choices(LOG_LEVELS))
    .action((mappings: string[], options: ServeOptions) => run(serve(mappings, options)));
}

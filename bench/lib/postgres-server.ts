import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * A throwaway PostgreSQL server for tests and benchmarks (compiled with the bench, so its processes can
 * start one too; test/support/postgres.ts wraps it in a describe block): initdb in a temp dir, `postgres` on a free port of 127.0.0.1
 * with trust authentication, a database `outbox_test`; stop() kills it and deletes the dir.
 * The server refuses to run as root, so as root it runs as the `postgres` user (through runuser, or su);
 * as any other user it runs as that user. The binaries come from $PG_BINDIR, `pg_config --bindir`, or the
 * newest /usr/lib/postgresql/<version>/bin.
 */

export interface PgServer {
  /** postgres://postgres@127.0.0.1:PORT/outbox_test */
  readonly url: string;
  /** Stops the server (immediate shutdown) and removes its directory. */
  stop(): Promise<void>;
}

const DATABASE = 'outbox_test';
const READY_TIMEOUT_MS = 20_000;

interface Setup {
  readonly bin: string;
  /** How to run a command as the server's user; undefined runs it as ourselves. */
  readonly as?: { readonly uid: number; readonly gid: number; readonly wrap: (cmd: string, args: string[]) => [string, string[]] };
}

function hasServer(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'postgres'));
}

function findBinDir(): string | undefined {
  const candidates: string[] = [];
  if (process.env.PG_BINDIR) candidates.push(process.env.PG_BINDIR);
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (fromConfig.status === 0) candidates.push(fromConfig.stdout.trim());
  try {
    const versions = fs.readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch {
    // Not a Debian-style layout.
  }
  return candidates.find(hasServer);
}

const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

function findSetup(): Setup | string {
  const bin = findBinDir();
  if (bin === undefined) {
    return 'no PostgreSQL server binaries (initdb, postgres) in $PG_BINDIR, `pg_config --bindir` or /usr/lib/postgresql/*/bin';
  }
  if (process.getuid?.() !== 0) return { bin };
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const [uid, gid] = [id('-u'), id('-g')];
  if (uid.status !== 0 || gid.status !== 0) return 'running as root, and there is no `postgres` user to run the server as';
  const wraps: ((cmd: string, args: string[]) => [string, string[]])[] = [
    (cmd, args) => ['runuser', ['-u', 'postgres', '--', cmd, ...args]],
    (cmd, args) => ['su', ['postgres', '-s', '/bin/sh', '-c', ['exec', cmd, ...args].map(quote).join(' ')]],
  ];
  const wrap = wraps.find((w) => {
    const [cmd, args] = w(path.join(bin, 'postgres'), ['--version']);
    return spawnSync(cmd, args, { cwd: '/', stdio: 'ignore' }).status === 0;
  });
  if (wrap === undefined) return 'running as root, and neither runuser nor su can run commands as the `postgres` user';
  return { bin, as: { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()), wrap } };
}

let setup: Setup | string | undefined;
function getSetup(): Setup | string {
  setup ??= findSetup();
  return setup;
}

/** Why no throwaway PostgreSQL can be started here, or undefined when it can. */
export function postgresUnavailable(): string | undefined {
  const found = getSetup();
  return typeof found === 'string' ? found : undefined;
}

function command(found: Setup, program: string, args: string[]): [string, string[]] {
  const cmd = path.join(found.bin, program);
  return found.as ? found.as.wrap(cmd, args) : [cmd, args];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tail = (file: string) => { try { return fs.readFileSync(file, 'utf8').slice(-2000); } catch { return ''; } };

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

async function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => { clearTimeout(timer); resolve(true); });
  });
}

/** Starts a server, or resolves undefined when `postgresUnavailable()` says why it cannot; rejects when starting fails. */
export async function startPostgres(): Promise<PgServer | undefined> {
  const found = getSetup();
  if (typeof found === 'string') return undefined;
  // As root, the temp dir must be one the postgres user can reach (TMPDIR may be under /root).
  const reachable = (base: string) => !found.as || spawnSync(...found.as.wrap('test', ['-x', base]), { cwd: '/' }).status === 0;
  const dir = fs.mkdtempSync(path.join(reachable(os.tmpdir()) ? os.tmpdir() : '/tmp', 'outbox-pg-'));
  if (found.as) fs.chownSync(dir, found.as.uid, found.as.gid);
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });

  const [initCmd, initArgs] = command(found, 'initdb', ['-D', data, '--auth=trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const init = spawnSync(initCmd, initArgs, { cwd: dir, encoding: 'utf8' });
  if (init.status !== 0) {
    remove();
    throw new Error(`initdb in ${dir} failed (${init.error?.message ?? `exit ${init.status}`}):\n${init.stderr}${init.stdout}`);
  }

  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const logFd = fs.openSync(log, 'a');
    const [cmd, args] = command(found, 'postgres',
      ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=on']);
    // Its own process group, so stopping it reaches runuser/su and every server process.
    const child = spawn(cmd, args, { cwd: dir, detached: true, stdio: ['ignore', logFd, logFd] });
    fs.closeSync(logFd);
    const onExit = () => { killGroup(child, 'SIGKILL'); remove(); };
    process.once('exit', onExit);
    const kill = async () => {
      killGroup(child, 'SIGQUIT');
      if (!(await waitForExit(child, 5000))) {
        killGroup(child, 'SIGKILL');
        await waitForExit(child, 5000);
      }
      process.removeListener('exit', onExit);
    };

    const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let lastError: unknown;
    const exited = () => child.exitCode !== null || child.signalCode !== null;
    while (Date.now() < deadline && !exited()) {
      const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 2000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
      } catch (err) {
        lastError = err;
        await client.end().catch(() => undefined);
        await sleep(100);
        continue;
      }
      try {
        await client.query(`CREATE DATABASE ${DATABASE}`);
      } catch (err) {
        await kill();
        remove();
        throw err;
      } finally {
        await client.end().catch(() => undefined);
      }
      return { url: `postgres://postgres@127.0.0.1:${port}/${DATABASE}`, stop: async () => { await kill(); remove(); } };
    }
    const died = exited();
    await kill();
    const output = tail(log);
    // Someone else took the port between our check and the server's bind: try another one.
    if (died && attempt < 3 && /already in use|could not bind/i.test(output)) continue;
    remove();
    throw new Error(`PostgreSQL did not accept connections on 127.0.0.1:${port} ${died ? 'and exited' : `within ${READY_TIMEOUT_MS} ms`}` +
      ` (${lastError instanceof Error ? lastError.message : String(lastError)}); its log:\n${output}`);
  }
}

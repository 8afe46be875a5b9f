import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BINARY, EXAMPLE, eventually, ROOT, runCli, startServe, startupLines, stoppedAfterEach, tempDir, staticMapping, writeFile } from './cli-process';

/**
 * What a newcomer and an operator meet first: the quick start's admin port and token, a pid file to
 * reload by, warnings where a setting refuses everyone, and the CLI on a Node.js older than 24.
 */

const { running } = stoppedAfterEach(afterEach);

const PARTIAL = staticMapping('partial');

describe('serve: the quick start and the operator\'s first steps', () => {
  it('--example-erp with an admin port and no ADMIN_TOKENS prints a token once, and the docs\' --admin commands work with it', async () => {
    const serving = await startServe(['--example-erp', '--admin-port', '0', EXAMPLE], { ADMIN_TOKENS: '' });
    running.push(serving);
    const lines = startupLines(serving.output().stdout).filter((line) => line.msg.startsWith('admin token for this run: '));
    expect(lines).toHaveLength(1);
    const token = String(lines[0].adminToken);
    expect(token).toMatch(/^[\w-]{20,}$/);
    expect(lines[0].msg).toContain(`export ADMIN_TOKEN=${token}`);
    const admin = String(serving.adminUrl);
    expect((await fetch(`${admin}/requests`)).status).toBe(401);
    expect((await fetch(`${admin}/requests`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const listed = await runCli(['outbox', 'list', '--admin', admin], { env: { ADMIN_TOKEN: token, ADMIN_TOKENS: '' } });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
  });

  it('a served mapping (no --example-erp) never gets a made-up token', async () => {
    const serving = await startServe(['--admin-port', '0', writeFile(tempDir(), 'partial.yaml', PARTIAL)], { ADMIN_TOKENS: '' });
    running.push(serving);
    const messages = startupLines(serving.output().stdout).map((line) => line.msg);
    expect(messages.some((msg) => msg.startsWith('admin token for this run'))).toBe(false);
    expect(messages).toContain('no admin token is set (ADMIN_TOKENS, ADMIN_TOKENS_FILE): /metrics, /openapi.json, /requests, /outbox and the details of /health/ready answer 401 to everyone');
  });

  it('--pid-file holds the pid to reload by (kill -HUP "$(cat file)"), and is removed when serve stops', async () => {
    const dir = tempDir();
    const pidFile = path.join(dir, 'serve.pid');
    const serving = await startServe(['--pid-file', pidFile, writeFile(dir, 'partial.yaml', PARTIAL)]);
    running.push(serving);
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    expect(pid).toBe(serving.child.pid);
    writeFile(dir, 'partial.yaml', staticMapping('partial', 'ERP number'));
    const hup = spawnSync('sh', ['-c', `kill -HUP "$(cat '${pidFile}')"`]);
    expect(hup.status).toBe(0);
    const label = async () => ((await (await fetch(`${serving.urls[0]}/WorkOrders/WorkOrderExternalIndexableValueLabel`)).json()) as { data: unknown }).data;
    let seen: unknown;
    for (let attempt = 0; attempt < 100 && !JSON.stringify(seen ?? null).includes('ERP number'); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      seen = await label();
    }
    expect(JSON.stringify(seen)).toContain('ERP number');
    serving.child.kill('SIGTERM');
    await serving.exited;
    expect(fs.existsSync(pidFile)).toBe(false);
  });

  it('an empty ADMIN_TOKENS_FILE is warned about at start and at each reload', async () => {
    const dir = tempDir();
    const tokens = writeFile(dir, 'tokens', '\n');
    const serving = await startServe(['--admin-port', '0', writeFile(dir, 'partial.yaml', PARTIAL)], { ADMIN_TOKENS: '', ADMIN_TOKENS_FILE: tokens });
    running.push(serving);
    const warned = () => startupLines(serving.output().stdout).filter((line) => line.msg.startsWith(`ADMIN_TOKENS_FILE ${tokens} holds no token`)).length;
    expect(warned()).toBe(1);
    serving.child.kill('SIGHUP');
    await eventually(() => warned() === 2, 'the warning again after SIGHUP');
  });

  it('--workers 2 says that it starts two worker processes', async () => {
    const serving = await startServe(['--workers', '2', writeFile(tempDir(), 'partial.yaml', PARTIAL)]);
    running.push(serving);
    expect(startupLines(serving.output().stdout).map((line) => line.msg)).toContain('starting 2 worker processes, each serving the port');
  });

  it('the adapter-engine command, which npm start runs, starts Node without V8\'s memory reducer', async () => {
    expect((JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start).toMatch(/^sh \.ci\/on-node24 dist\/engine\/cli\/main\.js serve /);
    const serving = await startServe(['--example-erp', EXAMPLE], {}, 1, { asInstalled: true });
    running.push(serving);
    // `env -S` replaces itself with node: the pid is node's, and its command line is the one the kernel ran.
    const commandLine = fs.readFileSync(`/proc/${serving.child.pid}/cmdline`, 'utf8').split('\0');
    expect(commandLine.slice(1, 4)).toEqual(['--no-memory-reducer', '--', BINARY]);
    expect((await fetch(`${serving.urls[0]}/WorkOrders/Code?Code=nope&StorageName=x`)).status).toBe(200);
  });

  it('serve --help names ADMIN_TOKENS under --admin-port', async () => {
    const help = await runCli(['serve', '--help']);
    const adminPort = help.stdout.split('\n--').find((part) => part.startsWith('admin-port')) ?? help.stdout.slice(help.stdout.indexOf('--admin-port'), help.stdout.indexOf('--studio-write'));
    expect(adminPort).toContain('ADMIN_TOKENS');
  });
});

describe('the CLI on a Node.js older than 24', () => {
  // The machine's own node: 20 on our machines and in CI. Where it is 24 or newer there is nothing to show.
  const machineNode = ['/usr/bin/node', '/usr/local/bin/node'].find((candidate) => fs.existsSync(candidate));
  const old = machineNode !== undefined && Number(spawnSync(machineNode, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout.trim()) < 24;

  it.runIf(old)('runs the command again under the project\'s Node.js 24, with its arguments, output and exit code', () => {
    const version = spawnSync(machineNode as string, ['--', BINARY, '--version'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(version.stderr).toBe('');
    expect(version.stdout.trim()).toBe(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    expect(version.status).toBe(0);
    const failing = spawnSync(machineNode as string, ['--', BINARY, 'validate', path.join(tempDir(), 'missing.yaml')], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(failing.status).toBe(2);
    expect(failing.stderr).not.toContain('enableCompileCache');
  });
});

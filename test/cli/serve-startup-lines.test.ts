import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BINARY, cliEnv, eventually, ROOT, startServe, startupLines, stoppedAfterEach, tempDir, staticMapping, writeFile } from './cli-process';

/**
 * `serve`'s start-up lines are JSON log lines on standard output like every other line, written whatever
 * the log level, and name the address actually bound; a person at a terminal also gets them as plain
 * lines on standard error.
 */

const { running, cleanups } = stoppedAfterEach(afterEach);

const PARTIAL = staticMapping('partial');

describe('serve: start-up lines', () => {
  it('are JSON log lines on stdout (at LOG_LEVEL=silent too) naming the port bound for --port 0 and --admin-port 0', async () => {
    const dir = tempDir();
    const file = writeFile(dir, 'partial.yaml', PARTIAL);
    const serving = await startServe(['--admin-port', '0', file], { LOG_LEVEL: 'silent' });
    running.push(serving);
    const lines = startupLines(serving.output().stdout);
    // Every line of stdout is a log line: nothing else is printed there.
    expect(serving.output().stdout.trim().split('\n')).toHaveLength(lines.length);
    const port = Number(new URL(serving.urls[0]).port);
    expect(port).toBeGreaterThan(0);
    const adminPort = Number(new URL(serving.adminUrl ?? '').port);
    expect(adminPort).toBeGreaterThan(0);
    expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: 30, msg: '1 mapping loaded: partial' },
      { level: 40, msg: `mapping "partial": 18 of 19 routes unmapped (adapter-engine routes ${file} lists them)` },
      { level: 30, msg: `adapter engine listening on http://127.0.0.1:${port} (mapping "partial")` },
      { level: 30, msg: `admin endpoints on http://127.0.0.1:${adminPort} (/health/live, /health/ready, /metrics, /openapi.json, /requests, /outbox, /shadow, /studio)` },
    ]);
    expect(lines[2]).toMatchObject({ name: 'adapter-engine', mapping: 'partial', url: `http://127.0.0.1:${port}`, address: '127.0.0.1', port });
    expect(lines[3]).toMatchObject({ url: `http://127.0.0.1:${adminPort}`, address: '127.0.0.1', port: adminPort });
    // Standard error is a pipe here, not a terminal: no plain lines.
    expect(serving.output().stderr).toBe('');
    expect((await fetch(`${serving.urls[0]}/WorkOrders/WorkOrderExternalIndexableValueLabel`)).status).toBe(200);
  });

  it('--host localhost: "listening on" names the address it resolved to and bound, not the name', async () => {
    const serving = await startServe(['--host', 'localhost', writeFile(tempDir(), 'partial.yaml', PARTIAL)]);
    running.push(serving);
    const [line] = startupLines(serving.output().stdout).filter((candidate) => candidate.msg.startsWith('adapter engine listening on '));
    expect(['127.0.0.1', '::1']).toContain(line.address);
    expect(line.url).toBe(`http://${line.address === '::1' ? '[::1]' : '127.0.0.1'}:${String(line.port)}`);
    expect((await fetch(`${String(line.url)}/WorkOrders/WorkOrderExternalIndexableValueLabel`)).status).toBe(200);
  });

  // util-linux `script` runs the command on a pseudo-terminal, as a person's shell does.
  const hasScript = (() => { try { execFileSync('script', ['--version'], { stdio: 'ignore' }); return true; } catch { return false; } })();
  it.runIf(hasScript)('when standard error is a terminal, each start-up line is also written there as a plain line', async () => {
    const file = writeFile(tempDir(), 'partial.yaml', PARTIAL);
    // The shell writes its pid and becomes the server (exec): `script` runs it in a session of its own, which
    // a signal to `script` does not reach, and the SIGHUP of the closing terminal only reloads a server.
    const pidFile = path.join(path.dirname(file), 'serve.pid');
    const command = `echo $$ > '${pidFile}'; exec '${process.execPath}' -- '${BINARY}' serve --host 127.0.0.1 --port 0 '${file}' 2>&1 >/dev/null`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, env: cliEnv() });
    let terminal = '';
    child.stdout.on('data', (chunk: Buffer) => { terminal += chunk.toString(); });
    const exited = new Promise((resolve) => child.on('close', resolve));
    cleanups.push(async () => {
      const server = Number(fs.readFileSync(pidFile, 'utf8'));
      try { process.kill(server, 'SIGTERM'); } catch { /* already gone */ }
      await exited;
    });
    await eventually(() => terminal.includes('adapter engine listening on '), 'the plain listening line on the terminal');
    expect(terminal).toContain('1 mapping loaded: partial');
    expect(terminal).toContain('warning: mapping "partial": 18 of 19 routes unmapped');
    expect(terminal).toMatch(/adapter engine listening on http:\/\/127\.0\.0\.1:\d+ \(mapping "partial"\)/);
    expect(terminal).not.toContain('{"level"');
  });
});

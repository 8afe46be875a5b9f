import { describe, expect, it } from 'vitest';
import { ROOT, runCli, STACK_LINE } from './cli-process';

describe('adapter-engine: help, version and usage errors', () => {
  it.each(['serve', 'validate', 'dry-run', 'test', 'routes'])('%s --help prints its usage and exits 0', async (command) => {
    const result = await runCli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: adapter-engine ${command}`);
    expect(result.stdout).toMatch(/Exit code/);
  });

  it('--help lists every subcommand with the exit codes', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['serve', 'validate', 'dry-run', 'test', 'routes']) expect(result.stdout).toContain(command);
    expect(result.stdout).toContain('2 usage error');
  });

  it('--version prints the package version', async () => {
    const { version } = (await import(`${ROOT}/package.json`)) as { version: string };
    const result = await runCli(['--version']);
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout.trim()).toBe(version);
  });

  it('no command prints the help on stderr and exits 2', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: adapter-engine');
  });

  it.each([
    [['deploy'], /unknown command 'deploy'/],
    [['validate'], /missing required argument 'files'/],
    [['routes', '--colour'], /unknown option '--colour'/],
    [['validate', '--env', 'not-a-pair', 'x.yaml'], /expected NAME=value/],
    [['serve', '--port', 'eighty', 'mappings/example.yaml'], /--port must be a whole number/],
  ])('%j is a usage error: exit 2, a message, no stack trace', async (args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });
});

describe('adapter-engine: a bug in the engine', () => {
  it('is shown with its stack trace, a request to report it, and exit code 3', async () => {
    // A fault cannot be provoked through a correct engine, so the one funnel is run directly.
    const { spawnSync } = await import('node:child_process');
    const result = spawnSync(process.execPath, ['-e', "process.exitCode = require('./dist/engine/cli/fatal.js').exitCodeFor(new TypeError('boom'))"], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(result.status).toBe(3);
    expect(result.stderr).toContain('TypeError: boom');
    expect(result.stderr).toMatch(STACK_LINE);
    expect(result.stderr).toContain('This is a bug in adapter-engine, not in your mapping. Please report it');
  });
});

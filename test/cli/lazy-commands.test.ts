import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './cli-process';

/** The subcommands the full help lists (main.ts loads each one's module only when it is asked for). */
async function listedCommands(): Promise<string[]> {
  const help = await runCli(['--help']);
  expect(help.code).toBe(0);
  const commands = help.stdout.split('Commands:')[1] ?? '';
  return [...commands.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((match) => match[1]).filter((name) => name !== 'help');
}

/** Runs the CLI in a Node process of its own and says which of `packages` it loaded. */
function loadedBy(args: readonly string[], packages: readonly string[]): { code: unknown; loaded: string[] } {
  const script = `require('./dist/engine/cli/main.js').runCli(${JSON.stringify(args)}).then((code) => {
    const files = Object.keys(require.cache);
    process.stderr.write(JSON.stringify({ code, loaded: ${JSON.stringify(packages)}.filter((name) => files.some((file) => file.includes('/node_modules/' + name + '/'))) }));
  })`;
  const result = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', LOG_LEVEL: 'silent' } });
  return JSON.parse(result.stderr.slice(result.stderr.lastIndexOf('{"code"'))) as { code: unknown; loaded: string[] };
}

describe('adapter-engine loads the module of the command it runs only', () => {
  it('every command of the help answers its own --help', async () => {
    const commands = await listedCommands();
    expect(commands).toEqual(expect.arrayContaining(['init', 'serve', 'validate', 'dry-run', 'test', 'routes', 'outbox', 'studio']));
    for (const command of commands) {
      const result = await runCli([command, '--help']);
      expect(result.code, command).toBe(0);
      expect(result.stdout, command).toContain(`Usage: adapter-engine ${command} `);
    }
  });

  it('validate checks a mapping without loading the server (koa, prom-client)', () => {
    const result = loadedBy(['validate', '-e', 'ERP_URL=http://127.0.0.1:9', 'mappings/example.yaml'], ['yaml', 'koa', 'prom-client']);
    expect(result).toEqual({ code: 0, loaded: ['yaml'] });
  });

  it('an unknown command is still told apart from the known ones', async () => {
    const result = await runCli(['serv', 'mappings/example.yaml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'serv'");
    expect(result.stderr).toContain('serve');
  });
});

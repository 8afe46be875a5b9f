#!/usr/bin/env -S node --no-memory-reducer --
// First: on a Node.js older than 24 the command runs again under the project's Node.js 24 (node-version.ts).
import './node-version';
// Then: the modules below load faster from the compile cache it turns on (compile-cache.ts).
import './compile-cache';
import { Command } from 'commander';
import { engineVersion } from '../paths';
import { addEnvFileOption } from './env-file';
import { exitCodeFor } from './fatal';
import { EXIT_CODES } from '../errors';

// `node --`: Node 20 reads a `--env-file` anywhere in its arguments as its own option (nodejs/node#54232)
// and exits 9 when the file is missing; after `--` the arguments are the command's, and ours reads them.

/**
 * `adapter-engine`: init, serve, validate, dry-run, test, routes, outbox, requests and record. Exit codes scripts rely on: 0 ok,
 * 1 the mapping or test failed, 2 usage error, 3 a bug in the engine (with its stack trace).
 */

type Register = (program: Command, run: (work: Promise<number>) => Promise<void>) => void;

/**
 * Each subcommand's module, in the order of the help, loaded when asked: a command loads what it needs
 * only (validate does not load the server, routes neither the server nor the mapping compiler). Every
 * module is loaded when the first argument names no command (--help, help, a typo, no command).
 */
const COMMANDS: readonly (readonly [string, () => Promise<Register>])[] = [
  ['init', async () => (await import('./init')).registerInit],
  ['serve', async () => (await import('./serve')).registerServe],
  ['validate', async () => (await import('./validate')).registerValidate],
  ['dry-run', async () => (await import('./dry-run')).registerDryRun],
  ['test', async () => (await import('./test')).registerTest],
  ['routes', async () => (await import('./routes')).registerRoutes],
  ['outbox', async () => (await import('./outbox')).registerOutbox],
  ['requests', async () => (await import('./requests')).registerRequests],
  ['record', async () => (await import('./record')).registerRecord],
  ['diff', async () => (await import('./diff')).registerDiff],
  ['studio', async () => (await import('./studio')).registerStudio],
  ['shadow', async () => (await import('./shadow')).registerShadow],
];

/** The program with the command `argv` names, or with every command when it names none. */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('adapter-engine')
    .description('Serve the warehouse platform\'s adapter contract from a YAML mapping, and check, try and test mappings from a terminal.\n\nExit codes: 0 ok, 1 the mapping or test failed, 2 usage error, 3 a bug in the engine.')
    .version(engineVersion(), '-V, --version')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();
  // Every subcommand reports its own parse errors through the same override, with exit code 2.
  program.configureHelp({ sortSubcommands: false, showGlobalOptions: false });
  let finished: Promise<void> = Promise.resolve();
  const run = (work: Promise<number>): Promise<void> => {
    finished = work.then((code) => {
      process.exitCode = code;
    });
    return finished;
  };
  const named = COMMANDS.filter(([name]) => name === argv[0]);
  for (const [, load] of named.length > 0 ? named : COMMANDS) (await load())(program, run);
  addEnvFileOption(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

export async function runCli(argv: readonly string[]): Promise<number> {
  const program = await buildProgram(argv);
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return EXIT_CODES.USAGE;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT_CODES.OK;
  } catch (error) {
    return exitCodeFor(error);
  }
}

if (require.main === module) {
  // `adapter-engine test | head`: the reader went away; stop quietly like other command-line tools.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    });
  }
  runCli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.exitCode = exitCodeFor(error);
    },
  );
}

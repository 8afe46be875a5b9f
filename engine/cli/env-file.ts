import fs from 'node:fs';
import type { Command } from 'commander';
import dotenv from 'dotenv';
import { usageError } from './usage';

/**
 * `--env-file FILE`, on every command: variables in dotenv format (read by the dotenv library), for
 * `${VAR}` in mappings and for what the command itself reads from the environment (PORT,
 * DATABASE_URL, ...). A variable already set in the environment wins over the file, so an operator's
 * `ERP_URL=... adapter-engine ...` is never silently replaced by a value from a file.
 */
export function addEnvFileOption(program: Command): void {
  for (const command of leaves(program)) {
    command.option('--env-file <file>', 'read environment variables from this dotenv file (KEY=value lines); variables already set in the environment win');
  }
  // A hook on the program runs before the action of every (nested) command.
  program.hook('preAction', (_program, action) => loadEnvFile(action.opts<{ envFile?: string }>().envFile));
}

function leaves(command: Command): Command[] {
  return command.commands.length === 0 ? [command] : command.commands.flatMap(leaves);
}

function loadEnvFile(file: string | undefined): void {
  if (file === undefined) return;
  let text: Buffer;
  try {
    text = fs.readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return usageError(code === 'ENOENT' ? `env file not found: ${file}` : `cannot read the env file ${file}: ${code ?? (error as Error).message}`);
  }
  dotenv.populate(process.env as Record<string, string>, dotenv.parse(text), { override: false });
}

import { CommanderError, InvalidArgumentError } from 'commander';
import { EXIT_CODES } from '../errors';

/**
 * Usage errors (a wrong argument, a missing file) travel as commander's own error type, so the
 * command's parse errors and ours leave through one path and with one exit code (2).
 */
export const USAGE_ERROR_CODE = 'adapter-engine.usage';

export function usageError(message: string): never {
  throw new CommanderError(EXIT_CODES.USAGE, USAGE_ERROR_CODE, message);
}

/** `--env NAME=value`, repeatable: variables for `${NAME}` in the mapping, on top of the process environment. */
export function collectEnv(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(value);
  if (!match) throw new InvalidArgumentError(`expected NAME=value, got "${value}"`);
  return { ...previous, [match[1]]: match[2] };
}

export function envWith(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  return { ...process.env, ...(extra ?? {}) };
}

export const DEFAULT_STATE_DIR = '.adapter-state';

/**
 * Defaults that come from the environment are read when the command runs, not when it is declared, so
 * that an --env-file (loaded just before the action) gives them like the environment does.
 */
export function stateDirOf(given: string | undefined): string {
  return given ?? process.env.ADAPTER_STATE_DIR ?? DEFAULT_STATE_DIR;
}

import { CommanderError } from 'commander';
import { EXIT_CODES, formatIssue, MappingLoadError } from '../errors';
import { err } from './output';
import { USAGE_ERROR_CODE } from './usage';

const REPORT_LINE = 'This is a bug in adapter-engine, not in your mapping. Please report it with the command you ran and the output above.';

/**
 * The one place a command's error becomes an exit code. A mapping problem or a usage error is a
 * message without a stack trace; anything else is a fault in the engine and shows its stack.
 */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has printed its own parse errors already; ours carry their message.
    if (error.code === USAGE_ERROR_CODE) err.line(`${err.colors.red('error:')} ${error.message}`);
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT_CODES.OK;
    return EXIT_CODES.USAGE;
  }
  if (error instanceof MappingLoadError) {
    for (const issue of error.issues) err.line(formatIssue(issue));
    return EXIT_CODES.FAILED;
  }
  err.line(error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : `non-error thrown: ${String(error)}`);
  err.line('');
  err.line(err.colors.red(REPORT_LINE));
  return EXIT_CODES.BUG;
}

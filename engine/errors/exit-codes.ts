/**
 * Exit codes of the `adapter-engine` command, which scripts and supervisors rely on. BUG is for a fault
 * inside the engine itself; it comes with a stack trace and a request to report it.
 */
export const EXIT_CODES = { OK: 0, FAILED: 1, USAGE: 2, BUG: 3, CRASHED: 70 } as const;

export const EXIT_CODE_MEANINGS: Readonly<Record<keyof typeof EXIT_CODES, string>> = {
  OK: 'the command did what was asked (validate: no errors; test: every case passed)',
  FAILED: 'the mapping has errors, a test case failed, or serve could not start (a mapping that does not load, a port in use)',
  USAGE: 'the command line is wrong: an unknown command or option, a missing argument, a file that does not exist',
  BUG: 'a fault inside the engine itself; the message has the stack trace to report',
  CRASHED: 'serve stopped after an uncaught exception (logged first), so that a supervisor restarts it',
};

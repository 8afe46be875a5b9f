/**
 * The catalogue of errors, in three places: load issues (a mapping file that cannot be used), request
 * failures (what went wrong serving one request, and which result stands for it) and the exit codes of
 * the command line.
 */
export * from './load-issues';
export * from './request-failures';
export * from './exit-codes';

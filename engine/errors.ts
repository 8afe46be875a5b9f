/**
 * The one catalogue of errors. Two families:
 * - mapping issues, found while loading a mapping file and reported as `file:line:col  message`;
 * - operation failures, raised while serving a request and turned into a result name by `failureResult`.
 * Codes are stable (tests and tooling assert on them); messages are for people and may change.
 */

export const MAPPING_ISSUE_CODES = {
  FILE_UNREADABLE: 'the mapping file cannot be read',
  YAML_SYNTAX: 'the file is not valid YAML',
  YAML_DUPLICATE_KEY: 'a key appears twice in the same block',
  YAML_ALIAS_LIMIT: 'too many YAML aliases (a possible alias bomb)',
  YAML_WARNING: 'a YAML construct the engine does not accept (for example an unknown tag)',
  ENV_UNSET: 'an environment variable used as ${VAR} is not set',
  SCHEMA: 'a setting is missing, unknown or of the wrong type',
  UNKNOWN_OPERATION: 'an operation name that is not a contract route',
  UNKNOWN_RESULT: 'a result name that the route does not have',
  MODE_CONFLICT: 'an operation mixes settings that exclude each other',
  RESERVED_NAME: 'a mapping function would hide a built-in function of the same name',
  EXPRESSION_SYNTAX: 'a JSONata expression does not compile',
  TEMPLATE_SYNTAX: 'a text template has an unclosed or empty {placeholder}',
  UNSAFE_PATH: 'a call path could leave the configured base URL',
  DUPLICATE_CALL_NAME: 'two calls of one operation have the same name',
  STATIC_DATA_INVALID: 'a static answer does not match the contract',
  BASE_URL_INVALID: 'the base URL is not an absolute http(s) URL',
  UNMAPPED_ROUTE: 'a contract route the mapping leaves unmapped',
  // Mapping test files and recorded-answer files (the CLI's `test` and `dry-run --answers`).
  UNKNOWN_CALL_NAME: 'an answer is given for a call the operation does not make',
  TEST_INPUT_INVALID: 'a test case gives an input that cannot be used',
  SECRET_INLINE: 'a secret (password, token, key) is written into the file instead of coming from ${VAR}',
  TOKEN_URL_INVALID: 'the OAuth2 token URL is not an absolute http(s) URL',
  TLS_FILE_UNREADABLE: 'a TLS file (CA bundle, client certificate or key) cannot be read',
  TLS_VERIFY_OFF: 'certificate checking toward the ERP is turned off (insecureSkipVerify)',
  CREDENTIAL_IN_HEADERS: 'a credential is sent through system.headers instead of system.auth, so it is not kept out of traces',
} as const;

export type MappingIssueCode = keyof typeof MAPPING_ISSUE_CODES;

export interface SourcePosition {
  readonly file: string;
  /** 1-based line and column; 0 when the problem concerns the file as a whole. */
  readonly line: number;
  readonly col: number;
}

export interface MappingIssue extends SourcePosition {
  readonly code: MappingIssueCode;
  readonly severity: 'error' | 'warning';
  readonly message: string;
}

export function formatIssue(issue: MappingIssue): string {
  const where = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.col}` : issue.file;
  const tag = issue.severity === 'warning' ? 'warning: ' : '';
  return `${where}  ${tag}${issue.message}`;
}

/** Thrown by the loader with every error it found, so an integrator fixes the file in one pass. */
export class MappingLoadError extends Error {
  readonly issues: readonly MappingIssue[];
  constructor(issues: readonly MappingIssue[]) {
    const errors = issues.filter((issue) => issue.severity === 'error');
    super(`mapping has ${errors.length} error(s):\n${errors.map(formatIssue).join('\n')}`);
    this.name = 'MappingLoadError';
    this.issues = issues;
  }
}

/**
 * What can go wrong while serving one request, and which result names stand for it, in order of
 * preference: the first name the route has wins (for example InvalidInput where the route has it,
 * otherwise OperationFailed). `AdapterNotDefined` is not here: it is the answer for an unmapped route,
 * not a failure.
 */
export const FAILURE_RESULTS = {
  /** The platform's request did not match the contract (malformed JSON, missing field, wrong type). */
  INPUT_INVALID: ['InvalidInput', 'OperationFailed'],
  /** No HTTP answer from the external system (after the retries the mapping allows): refused, reset, timeout, DNS, TLS, too large. */
  ERP_UNREACHABLE: ['AdapterApiClientFailed'],
  /** The operation's deadlineMs passed before its calls were done. */
  DEADLINE_EXCEEDED: ['AdapterApiClientFailed'],
  /** The OAuth2 token endpoint failed (unreachable, error status, no access_token). */
  AUTH_FAILED: ['AdapterApiClientFailed'],
  /** A paginated call had more pages than its maxPages: reported, never silently cut. */
  PAGE_LIMIT: ['OperationFailed'],
  /** The external system answered with an error status and no outcome rule claimed it. */
  ERP_ERROR_STATUS: ['AdapterApiCallFailed', 'AdapterApiClientFailed'],
  /** The external system answered with a body that could not be read as declared (HTML instead of JSON). */
  ERP_BODY_UNREADABLE: ['AdapterApiCallFailed', 'AdapterApiClientFailed'],
  /**
   * The outbound request could not be built: a placeholder without value (an input the platform left
   * out) or a value that cannot go into a URL path (`..`). Both come from the input, hence InvalidInput.
   */
  REQUEST_INVALID: ['InvalidInput', 'OperationFailed'],
  /** A JSONata expression threw, or timed out. */
  TRANSFORM_FAILED: ['WorkOrderInvalid', 'OperationFailed'],
  /** The output did not match the contract's schema for the route's data. */
  OUTPUT_INVALID: ['WorkOrderInvalid', 'OperationFailed'],
  /**
   * An uploaded file (file routes) could not be read: not Base64, wrong text encoding, broken CSV or
   * JSON, a cell of the wrong type, a row that does not give a valid contract object, a size limit.
   * The operator fixes the file, so every problem names its row or JSON path.
   */
  FILE_INVALID: ['InvalidInput', 'OperationFailed'],
  /** The mapping does not accept this file type (for example a JSON file where only CSV is declared). */
  FILE_NOT_SUPPORTED: ['FileNotSupported', 'OperationFailed'],
  /** A fault inside the engine itself; logged with its stack, never shown to the platform. */
  INTERNAL: ['OperationFailed'],
} as const satisfies Record<string, readonly string[]>;

export type FailureKind = keyof typeof FAILURE_RESULTS;

/**
 * Exit codes of the `adapter-engine` command, which scripts rely on. BUG is for a fault inside the
 * engine itself; it comes with a stack trace and a request to report it.
 */
export const EXIT_CODES = { OK: 0, FAILED: 1, USAGE: 2, BUG: 3 } as const;

/** One problem shown in `validationStatus`: where (a JSON path or a call name) and what. */
export interface Problem {
  readonly path: string;
  readonly message: string;
}

export class OperationFailure extends Error {
  readonly kind: FailureKind;
  readonly problems: readonly Problem[];
  constructor(kind: FailureKind, message: string, problems?: readonly Problem[]) {
    super(message);
    this.name = 'OperationFailure';
    this.kind = kind;
    this.problems = problems ?? [{ path: '', message }];
  }
}

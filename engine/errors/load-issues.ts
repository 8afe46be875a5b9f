/**
 * Mapping issues: found while loading a mapping file (or the CLI's test files) and reported as
 * `file:line:col  message`. Codes are stable (tests and tooling assert on them; one code per rule);
 * messages are for people and may change. docs/errors.md is generated from this table.
 */

type Stage = 'yaml' | 'structure' | 'compile' | 'test files' | 'test runs';

/** `stage`: who raises the code — reading the YAML, the structure check (the format's JSON Schema), the compiler, the CLI reading test and recorded-answer files, or the CLI running a mapping's tests (`test` reports them as warnings, `validate --strict` as errors). */
export const MAPPING_ISSUE_CODES = {
  FILE_UNREADABLE: { stage: 'yaml', meaning: 'the mapping file cannot be read' },
  YAML_SYNTAX: { stage: 'yaml', meaning: 'the file is not valid YAML' },
  YAML_DUPLICATE_KEY: { stage: 'yaml', meaning: 'a key appears twice in the same block' },
  YAML_ALIAS_LIMIT: { stage: 'yaml', meaning: 'too many YAML aliases (a possible alias bomb)' },
  YAML_WARNING: { stage: 'yaml', meaning: 'a YAML construct the engine does not accept (for example an unknown tag)' },
  FUNCTION_UNKNOWN: { stage: 'compile', meaning: 'an expression calls $name, which is no function (often a typo; it would fail only when it runs)' },
  ENV_IN_EXPRESSION: { stage: 'compile', meaning: 'an expression reads ${VAR}, which pastes the value into its text; $secret("VAR") gives it as a value, masked' },
  SECRET_NAME_INVALID: { stage: 'compile', meaning: '$secret(...) is given something other than the name of an environment variable written as text' },
  ENV_UNSET: { stage: 'yaml', meaning: 'an environment variable used as ${VAR} (or ${VAR:?message}) is not set; a warning for validate, routes, test and dry-run --answers, which send nothing' },
  ENV_REFERENCE_INVALID: { stage: 'yaml', meaning: 'a ${...} that is not one of the forms ${VAR}, ${VAR:-default}, ${VAR:?message}' },
  OLD_SPELLING: { stage: 'yaml', meaning: 'a setting is written the way an earlier version of the format spelt it; it still loads, and validate --fix rewrites it' },
  OLD_AND_NEW_SPELLING: { stage: 'yaml', meaning: 'a block has a setting in both its old and its current spelling' },
  UNKNOWN_SETTING: { stage: 'structure', meaning: 'a setting the format does not have (often a typo)' },
  MISSING_SETTING: { stage: 'structure', meaning: 'a required setting is missing' },
  WRONG_TYPE: { stage: 'structure', meaning: 'a setting has the wrong kind of value (text, number, list, block)' },
  VALUE_NOT_ALLOWED: { stage: 'structure', meaning: 'a setting has a value outside what it accepts (a word not in its list, a number out of range)' },
  SETTING_NOT_FOR_VARIANT: { stage: 'structure', meaning: 'a setting that does not belong to the chosen auth type or pagination style' },
  UNKNOWN_OPERATION: { stage: 'structure', meaning: 'an operation name that is not a contract route' },
  USE_UNKNOWN: { stage: 'structure', meaning: 'a call says use: <name>, and system.calls has no call template of that name (often a typo)' },
  USE_NOT_HERE: { stage: 'structure', meaning: "use: on a push's call, which goes to the platform; the call templates of system.calls are calls to the ERP" },
  TEMPLATE_UNUSED: { stage: 'structure', meaning: 'a call template of system.calls that no call uses (a warning)' },
  UNKNOWN_RESULT: { stage: 'compile', meaning: 'a result name that the route does not have' },
  MODES_MIXED: { stage: 'compile', meaning: 'an operation has settings of two ways of answering (for example static together with calls)' },
  MODE_MISMATCH: { stage: 'compile', meaning: 'the mode an operation states does not match the settings it has' },
  MODE_NOT_FOR_ROUTE: { stage: 'compile', meaning: 'a way of answering the route cannot use (acknowledge on a data route, static or output on an event route, file on a route without files)' },
  SETTING_NOT_FOR_ROUTE: { stage: 'compile', meaning: 'a setting the route cannot use (onInvalidRecord: skip on a route that answers no list of records, or that is not answered by calls + output)' },
  OPERATION_INCOMPLETE: { stage: 'compile', meaning: 'an operation lacks what its route needs (a data route without output, an event route without calls)' },
  OUTBOX_NOT_ALLOWED: { stage: 'compile', meaning: 'delivery: outbox on a data route, whose answer only the ERP can give while the platform waits' },
  RETRY_NOT_SAFE: { stage: 'compile', meaning: 'retries asked for on a request that is not marked safe to repeat' },
  SETTINGS_DISAGREE: { stage: 'compile', meaning: 'two settings that only make sense together, or that contradict each other (certFile without keyFile, sizeParam without pageSize, header: false without names)' },
  FILE_LAYOUT: { stage: 'compile', meaning: 'a file block that does not say, or says twice, how rows become contract objects' },
  UNKNOWN_COLUMN: { stage: 'compile', meaning: 'a file layout names a column that csv.names does not list' },
  LIMIT_CAPPED: { stage: 'compile', meaning: 'a limit that another, lower one caps (forEach.maxConcurrency above system.maxConcurrency, a call timeout longer than the deadline; a warning)' },
  RESERVED_NAME: { stage: 'compile', meaning: 'a mapping function would hide a built-in function of the same name' },
  EXPRESSION_SYNTAX: { stage: 'compile', meaning: 'a JSONata expression does not compile' },
  EXPRESSION_INTERPRETED: { stage: 'compile', meaning: "an expression runs on JSONata's interpreter instead of compiled code, and which construct keeps it there (an info line of validate and the studio)" },
  GRAPHQL_SYNTAX: { stage: 'compile', meaning: "a call's graphql.document is not a GraphQL document, or does not say which operation to send" },
  GRAPHQL_INVALID: { stage: 'compile', meaning: "a call's graphql.document does not fit its graphql.schema (a field, an argument or a type the schema does not have)" },
  GRAPHQL_SCHEMA_UNREADABLE: { stage: 'compile', meaning: 'graphql.schema names a file that cannot be read as a GraphQL schema (introspection JSON or SDL)' },
  REGEX_UNSUPPORTED: { stage: 'compile', meaning: 'a regular expression needs backtracking (a backreference, lookahead or lookbehind) or repeats more than 1000 times: mappings run regular expressions in linear time (RE2)' },
  DATE_FORMAT_UNKNOWN: { stage: 'compile', meaning: "$isoDateTime is given a format it does not know, e.g. $isoDateTime(d, 'DD-MM-YY')" },
  TIME_ZONE_UNKNOWN: { stage: 'compile', meaning: "$isoDateTime is given a time zone that is not an IANA name, e.g. $isoDateTime(d, null, 'CET+1')" },
  TEMPLATE_SYNTAX: { stage: 'compile', meaning: 'a text template has an unclosed or empty {placeholder}' },
  UNSAFE_PATH: { stage: 'compile', meaning: 'a call path could leave the configured base URL' },
  DUPLICATE_CALL_NAME: { stage: 'compile', meaning: 'two calls of one operation have the same name' },
  CALL_NOT_DEFINED: { stage: 'compile', meaning: 'an expression reads `calls.<name>` of a call its operation does not define (often a typo; it would give nothing, not an error)' },
  INPUT_FIELD_UNKNOWN: { stage: 'compile', meaning: 'an expression reads `input.<field>` of a field the route\'s input does not have (the contract names them; a typo gives nothing, not an error)' },
  OUTPUT_FIELD_MISSING: { stage: 'compile', meaning: 'an output builds an object without a field the contract requires, in every branch of the expression: every answer would fail the output check' },
  CALL_NOT_YET_MADE: { stage: 'compile', meaning: 'an expression reads `calls.<name>` before that call is made: a call reads only the calls above it, outbox.orderingKey reads only input' },
  PUSH_WITHOUT_PLATFORM: { stage: 'compile', meaning: 'push endpoints are declared but no platform: block says where to deliver them' },
  PUSH_UNCHECKED: { stage: 'compile', meaning: 'a push endpoint says nothing about what a valid push is (neither schema nor rules)' },
  PUSH_SCHEMA_INVALID: { stage: 'compile', meaning: "a push endpoint's schema is not a valid JSON Schema" },
  STATIC_DATA_INVALID: { stage: 'compile', meaning: 'a static answer does not match the contract' },
  BASE_URL_INVALID: { stage: 'compile', meaning: 'the base URL is not an absolute http(s) URL' },
  UNMAPPED_ROUTE: { stage: 'compile', meaning: 'a contract route the mapping leaves unmapped (a warning)' },
  SECRET_INLINE: { stage: 'compile', meaning: 'a secret (password, token, key) is written into the file instead of coming from ${VAR}' },
  TOKEN_URL_INVALID: { stage: 'compile', meaning: 'the OAuth2 token URL is not an absolute http(s) URL' },
  TLS_FILE_UNREADABLE: { stage: 'compile', meaning: 'a TLS file (CA bundle, client certificate or key) cannot be read' },
  TLS_VERIFY_OFF: { stage: 'compile', meaning: 'certificate checking toward the ERP is turned off (insecureSkipVerify; a warning)' },
  CREDENTIAL_IN_HEADERS: { stage: 'compile', meaning: 'a credential is sent through system.headers instead of system.auth, so it is not kept out of traces (a warning)' },
  UNKNOWN_CALL_NAME: { stage: 'test files', meaning: 'an answer is given for a call the operation does not make' },
  TEST_INPUT_INVALID: { stage: 'test files', meaning: 'a test case gives an input that cannot be used' },
  ANSWER_INVALID: { stage: 'test files', meaning: 'a recorded ERP answer that cannot have happened (both body and error, or a status with a transport error)' },
  XML_LIST_UNDECLARED: { stage: 'test runs', meaning: "an element repeats in a recorded XML answer but is not in the call's lists: (one such element would read as an object, not a list)" },
  EXPRESSION_ALWAYS_EMPTY: { stage: 'test runs', meaning: 'an expression gave nothing in every test case that ran it (often a misspelt field of the ERP answer)' },
  OUTPUT_FIELD_NEVER_FILLED: { stage: 'test runs', meaning: 'an output field the mapping writes is in no test case\'s answer (the expression that fills it always gave nothing)' },
  ANSWER_FIELD_UNKNOWN: { stage: 'test runs', meaning: 'validate: an expression reads a field of a call\'s answer that no recorded answer in the mapping\'s tests has, and one of a close spelling is there (a warning)' },
  TEST_FILE_MISSING: { stage: 'test runs', meaning: 'validate --strict found no test file for the mapping (<mapping>.test.yaml beside it, or --tests)' },
  TEST_CASE_FAILED: { stage: 'test runs', meaning: 'validate --strict: a case of the mapping\'s test file fails' },
} as const satisfies Record<string, { stage: Stage; meaning: string }>;

export type MappingIssueCode = keyof typeof MAPPING_ISSUE_CODES;

export interface SourcePosition {
  readonly file: string;
  /** 1-based line and column; 0 when the problem concerns the file as a whole. */
  readonly line: number;
  readonly col: number;
}

export interface MappingIssue extends SourcePosition {
  readonly code: MappingIssueCode;
  /** Where in the document, e.g. `operations.GetItem.calls[0].retry` ('' for the file as a whole). */
  readonly path: string;
  /** `info`: nothing to fix, something worth knowing (an expression that is not compiled). */
  readonly severity: 'error' | 'warning' | 'info';
  readonly message: string;
}

export function formatIssue(issue: MappingIssue): string {
  const where = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.col}` : issue.file;
  const tag = issue.severity === 'error' ? '' : `${issue.severity}: `;
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

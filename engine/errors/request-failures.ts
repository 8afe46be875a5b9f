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
  /**
   * A paginated call could not be read to its end: a page's items expression gave nothing at all (not
   * even an empty list), or a full page's next/hasMore gave nothing while the mapping does not say
   * (paginate.lastPageMayBeFull) that the ERP ends lists that way. Reported, never a list cut short.
   */
  PAGINATION_INCOMPLETE: ['OperationFailed'],
  /** The external system answered with an error status and no outcome rule claimed it. */
  ERP_ERROR_STATUS: ['AdapterApiCallFailed', 'AdapterApiClientFailed'],
  /**
   * The external system refused inside its answer, whatever the HTTP status, as the mapping's refusal rule
   * (system.refusal, or the call's own) tells: JSON-RPC's {"error": ...} in a 200, a SOAP fault. The
   * system's words go to the platform as externalMessage.
   */
  ERP_REFUSED: ['AdapterApiCallFailed', 'AdapterApiClientFailed'],
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
  /** An event for the outbox could not be stored durably (disk full, database down): the platform must send it again. */
  EVENT_NOT_STORED: ['OperationFailed'],
  /** A fault inside the engine itself; logged with its stack, never shown to the platform. */
  INTERNAL: ['OperationFailed'],
} as const satisfies Record<string, readonly string[]>;

export type FailureKind = keyof typeof FAILURE_RESULTS;

/** One problem shown in `validationStatus`: where (a JSON path or a call name) and what. */
export interface Problem {
  readonly path: string;
  readonly message: string;
  /** Where in the mapping the wrong value was made (file:line:col of the output's field), when known. */
  readonly madeAt?: { readonly file: string; readonly line: number; readonly col: number };
}

/** What the ERP answered, when a failure comes from its answer: the outbox decides from it whether to retry. */
export interface ErpAnswerSummary {
  /** The call that got the answer. */
  readonly call?: string;
  readonly status: number;
  /** Retry-After, in milliseconds, when the ERP sent one. */
  readonly retryAfterMs?: number;
  /** The start of the body, for support staff. */
  readonly body?: string;
}

/** What an ERP's refusal adds to its failure: its own words, and whether a delivery may try again. */
export interface RefusalDetail {
  /** For the platform's externalMessage; null when the mapping's rule gives none. */
  readonly externalMessage: string | null;
  readonly retryable: boolean;
}

export interface FailureDetails {
  readonly cause?: unknown;
  readonly refusal?: RefusalDetail;
  readonly externalMessage?: string | null;
}

export class OperationFailure extends Error {
  readonly kind: FailureKind;
  readonly problems: readonly Problem[];
  readonly answer?: ErpAnswerSummary;
  readonly refusal?: RefusalDetail;
  /** What the platform's externalMessage says: a refusal's words, or what the operator must know (credentials refused, a write already taken). */
  readonly externalMessage?: string | null;
  /**
   * `details.cause`: what failed underneath (a JSONata error), for callers that answer by its kind;
   * `details.refusal`: the ERP's refusal (its words, whether a delivery may try again);
   * `details.externalMessage`: the platform's message when it is not a refusal's words.
   */
  constructor(kind: FailureKind, message: string, problems?: readonly Problem[], answer?: ErpAnswerSummary, details: FailureDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'OperationFailure';
    this.kind = kind;
    this.problems = problems ?? [{ path: '', message }];
    this.answer = answer;
    this.refusal = details.refusal;
    this.externalMessage = details.externalMessage ?? details.refusal?.externalMessage;
  }

  /** The details to give a failure made from this one (a fan-out element's, named). */
  get details(): FailureDetails {
    return { cause: this.cause, refusal: this.refusal, externalMessage: this.externalMessage };
  }
}

/**
 * What the outbound layer reports besides a TransportError, in its own terms. Which result a request
 * then gets is the pipeline's decision (pipeline/fetch-call.ts), not the HTTP layer's.
 */

/** The request's time budget (operation `deadlineMs`) ran out before a call was done. */
export class DeadlinePassed extends Error {
  /** `waiting`: what the call was waiting for, when not for the ERP's answer (the rate limit's points). */
  constructor(readonly limitMs: number | undefined, readonly label: string, waiting?: string) {
    super(`the operation's deadline of ${limitMs} ms passed before calls.${label} was done${waiting ? ` (${waiting})` : ''}`);
    this.name = 'DeadlinePassed';
  }
}

/** The OAuth2 token endpoint could not give a token (unreachable, an error status, no access_token), or the ERP gave no CSRF token. */
export class TokenUnavailable extends Error {
  /** @param summary what the platform may read: the fault without the endpoint's URL (the message, for the log, has it). */
  constructor(message: string, readonly summary: string) {
    super(message);
    this.name = 'TokenUnavailable';
  }
}

/**
 * The platform closed the connection before its answer: nothing more is sent to the ERP for it, and a
 * call under way is cut off (`cutOff`) rather than left to run to its timeout.
 */
export class RequestAbandoned extends Error {
  constructor(readonly label: string, cutOff = false) {
    super(`the platform closed the connection before the answer; calls.${label} ${cutOff ? 'was cut off' : 'and what follows were not made'}`);
    this.name = 'RequestAbandoned';
  }
}

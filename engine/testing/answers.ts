import { TransportError, decodeBody, type HttpClient, type OutboundRequest, type OutboundResponse, type TransportErrorCode } from '../http/client';
import type { AnswerSource } from '../trace/steps';
import type { MappingIssue } from '../errors';
import { CSRF_TOKEN_CALL } from '../http/csrf';
import { OAUTH2_TOKEN_CALL } from '../http/token-source';
import type { Operation, SystemSpec } from '../mapping/model';
import type { PathSegment, YamlSource } from '../mapping/yaml-source';
import { compileShape, issueAt, readCheckedYaml } from '../mapping/yaml-file';

/**
 * Recorded answers of the external system, by call name: what `dry-run --answers` and mapping tests
 * give instead of a live ERP. One answer per call, or a list when a call is made more than once.
 */
export interface RecordedAnswer {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** The body as expressions see it: a JSON value, text, or Base64 for `responseType: binary`. */
  readonly body?: unknown;
  /** The raw body text, read as the call declares (so an HTML page on a JSON call is unreadable, as live). */
  readonly text?: string;
  /** An XML answer, as the text the system sends (a call that reads XML: responseType: xml or soap:). */
  readonly xml?: string;
  /** No HTTP answer at all: the transport failure to simulate. */
  readonly error?: TransportErrorCode;
}

export type RecordedAnswers = Readonly<Record<string, RecordedAnswer | readonly RecordedAnswer[]>>;

const TRANSPORT_CODES: TransportErrorCode[] = ['TIMEOUT', 'REFUSED', 'RESET', 'DNS', 'TLS', 'TOO_LARGE', 'NETWORK'];

const ANSWER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'One answer of the external system.',
  properties: {
    status: { type: 'integer', minimum: 100, maximum: 599, description: 'HTTP status (default 200).' },
    headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'Response headers.' },
    body: { description: 'Body as expressions see it: JSON value, text, or Base64 for binary calls.' },
    text: { type: 'string', description: 'Raw body text, read as the call declares.' },
    xml: { type: 'string', description: 'An XML answer as the system sends it (for a call that reads XML: responseType: xml or soap:), read by the same rules as a live one.' },
    error: { enum: TRANSPORT_CODES, description: 'No answer: the transport failure to simulate.' },
  },
} as const;

export const ANSWERS_SCHEMA = {
  type: 'object',
  propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
  additionalProperties: { anyOf: [ANSWER_SCHEMA, { type: 'array', items: ANSWER_SCHEMA }] },
  description: 'Call name to its answer (or list of answers, one per time the call is made).',
} as const;

const validateAnswersFile = compileShape(ANSWERS_SCHEMA);

function listOf(answers: RecordedAnswer | readonly RecordedAnswer[]): readonly RecordedAnswer[] {
  return Array.isArray(answers) ? answers : [answers as RecordedAnswer];
}

/**
 * The names an answer may be recorded under: the operation's calls, and the login of the system's
 * session (system.session), which is made before them and so needs an answer too.
 */
export function answerableCalls(operation: Operation | undefined, system: SystemSpec): string[] {
  if (operation?.mode !== 'flow') return [];
  const calls = operation.calls.map((call) => call.name);
  return system.session && calls.length > 0 ? [system.session.login.name, ...calls] : calls;
}

/** Checks what the schema cannot: exclusive keys, and call names the operation really makes. */
export function checkAnswers(source: YamlSource, at: readonly PathSegment[], answers: RecordedAnswers, operation: Operation | undefined, system: SystemSpec): MappingIssue[] {
  const issues: MappingIssue[] = [];
  const calls = answerableCalls(operation, system);
  for (const [name, given] of Object.entries(answers)) {
    if (!calls.includes(name)) {
      const made = calls.length > 0 ? `it makes: ${calls.join(', ')}` : 'it makes no calls';
      issues.push(issueAt(source, [...at, name], 'UNKNOWN_CALL_NAME', `"${name}" is not a call of ${operation?.route.operationId ?? 'this operation'}; ${made}`, true));
    }
    listOf(given).forEach((answer, index) => {
      const where = Array.isArray(given) ? [...at, name, index] : [...at, name];
      const kinds = (['body', 'text', 'xml', 'error'] as const).filter((key) => answer[key] !== undefined);
      if (kinds.length > 1) issues.push(issueAt(source, where, 'ANSWER_INVALID', `an answer has ${kinds.join(' and ')}; give one of body, text, xml or error`));
      if (answer.error && (answer.status !== undefined || answer.headers)) issues.push(issueAt(source, where, 'ANSWER_INVALID', 'an answer with "error" has no status or headers (no HTTP answer arrived)'));
    });
  }
  return issues;
}

export function readAnswersFile(filePath: string): { source?: YamlSource; answers?: RecordedAnswers; issues: MappingIssue[] } {
  const { source, issues } = readCheckedYaml(filePath, validateAnswersFile);
  return source ? { source, answers: (source.value ?? {}) as RecordedAnswers, issues } : { issues };
}

/** The answer as the live client would hand it to the pipeline. */
function toResponse(answer: RecordedAnswer, request: OutboundRequest): OutboundResponse {
  if (answer.error) throw new TransportError(answer.error, `${request.method} ${request.url.origin}${request.url.pathname}: recorded transport failure ${answer.error}`);
  const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const status = answer.status ?? 200;
  if (answer.text !== undefined) return { status, headers, ...decodeBody(Buffer.from(answer.text, 'utf8'), request.responseType, headers['content-type'] ?? '', status), durationMs: 0 };
  if (answer.xml !== undefined) {
    if (request.responseType !== 'xml') throw new Error(`the recorded answer of ${request.callName} is xml:, but the call reads ${request.responseType}; give body: or text:, or set responseType: xml`);
    return { status, headers: { 'content-type': 'text/xml; charset=utf-8', ...headers }, ...decodeBody(Buffer.from(answer.xml, 'utf8'), 'xml', headers['content-type'] ?? 'text/xml', status), durationMs: 0 };
  }
  return { status, headers, body: answer.body === undefined ? null : answer.body, durationMs: 0 };
}


/**
 * The HttpClient of dry runs and tests: recorded answers first, then the live system when allowed,
 * then (event routes without --live) a synthetic "not sent" answer. A call with none of these fails,
 * and `unanswered` names it so the caller can say exactly which answer is missing. `heldBack` names the
 * calls that can change the ERP: they get a synthetic answer even when the live system is allowed.
 */
export interface AnsweringClient extends HttpClient {
  readonly log: { callName: string; source: AnswerSource }[];
  readonly unanswered: string[];
}

export function createAnsweringClient(options: { answers?: RecordedAnswers; live?: HttpClient; notSent?: boolean; heldBack?: ReadonlySet<string> }): AnsweringClient {
  const used = new Map<string, number>();
  const log: AnsweringClient['log'] = [];
  const unanswered: string[] = [];
  return {
    log,
    unanswered,
    async send(request) {
      const given = options.answers?.[request.callName];
      const index = used.get(request.callName) ?? 0;
      const list = given === undefined ? [] : listOf(given);
      if (index < list.length) {
        used.set(request.callName, index + 1);
        log.push({ callName: request.callName, source: 'recorded' });
        return toResponse(list[index], request);
      }
      if (options.live && options.heldBack?.has(request.callName)) {
        log.push({ callName: request.callName, source: 'write not sent' });
        return { status: 200, headers: {}, body: null, durationMs: 0 };
      }
      if (options.live) {
        log.push({ callName: request.callName, source: 'live' });
        return options.live.send(request);
      }
      if (request.callName === OAUTH2_TOKEN_CALL) {
        // Recorded runs replay the ERP's answers; the identity provider is not part of them.
        log.push({ callName: request.callName, source: 'stand-in token' });
        return { status: 200, headers: {}, body: { access_token: 'recorded-run-token', token_type: 'Bearer', expires_in: 3600 }, durationMs: 0 };
      }
      if (request.callName === CSRF_TOKEN_CALL) {
        // The token is answered in the header the fetch asked with (X-CSRF-Token: Fetch).
        const asked = Object.keys(request.headers).find((name) => request.headers[name] === 'Fetch') ?? 'x-csrf-token';
        log.push({ callName: request.callName, source: 'stand-in token' });
        return { status: 200, headers: { [asked.toLowerCase()]: 'recorded-run-token' }, body: '', durationMs: 0 };
      }
      if (options.notSent) {
        log.push({ callName: request.callName, source: 'not sent' });
        return { status: 200, headers: {}, body: null, durationMs: 0 };
      }
      const which = index === 0 ? '' : ` (answer ${index + 1}; ${list.length} recorded)`;
      unanswered.push(`${request.callName}${which}`);
      log.push({ callName: request.callName, source: 'missing' });
      throw new TransportError('NETWORK', `no recorded answer for call "${request.callName}"${which}`);
    },
    close() {
      options.live?.close();
    },
  };
}

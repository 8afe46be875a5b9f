import { OperationFailure, type Problem } from '../errors';
import type { ErpConnection } from '../http/connection';
import { childLogger, type Logger } from '../log';
import type { Mapping, PushSpec, SystemSpec } from '../mapping/model';
import type { OutboxStore } from '../outbox/store';
import type { CallReport } from '../pipeline/fetch-call';
import { deliverPush } from '../pipeline/run-push';
import type { TraceContext } from '../trace/context';
import type { TraceObserver } from '../trace/observer';
import { verdictOf, type Verdict } from '../delivery/delivery';
import type { Meter } from '../metrics/meter';
import { acceptPush, type PushRequest } from './push';
import { checkPushHeaders, type InboundVerdict } from '../access/inbound-auth';

/**
 * A push request answered in HTTP terms: 202 with the event ids once stored, 400 with every problem,
 * 401 without valid credentials, 404/405 for a push that is not there, 415 for a body that is not JSON,
 * 503 when the store is down or the engine's time limit stopped the push's expressions (send it again).
 * Without a store (dry-run, test) the events are delivered while the request runs, as the outbox would.
 */

export type PushBody =
  | { readonly events: readonly string[]; readonly duplicate: boolean }
  | { readonly error: string; readonly problems?: readonly Problem[] };

interface PushServed {
  readonly status: number;
  readonly body: PushBody;
  readonly headers: Readonly<Record<string, string>>;
  readonly push?: PushSpec;
  /** What the push came to, as counted and journaled: Accepted, Duplicate, Invalid, NotJson, Refused, NotStored, TimedOut, NotFound, MethodNotAllowed. */
  readonly result: string;
  /** The pushed JSON, once read (for the request journal). */
  readonly input?: unknown;
  /** Without a store: what delivering the events to the platform did (the first failure, if any). */
  readonly delivery?: { readonly verdict: Verdict['kind']; readonly message?: string };
}

export interface PushServerDeps {
  readonly store?: OutboxStore;
  readonly checkAuth: boolean;
  readonly now: () => number;
  readonly log: Logger;
  readonly meter: Meter;
  readonly connection: (system: SystemSpec) => ErpConnection;
  /** An event was stored: the deliverer looks at once. */
  readonly stored: () => void;
}

export interface PushServer {
  serve(mapping: Mapping, name: string, request: PushRequest, requestId: string, seconds: () => number, observer?: TraceObserver, trace?: TraceContext): Promise<PushServed>;
  /**
   * The 401 of a push whose headers already show it is not allowed in (an API key or Basic not accepted, a
   * signature missing or stale), before its body is read; undefined when it may go on (a signature is
   * checked over the body by serve).
   */
  refuseEarly(mapping: Mapping, name: string, request: PushRequest, requestId: string, seconds: () => number): PushServed | undefined;
}

export function createPushServer(deps: PushServerDeps): PushServer {
  const onCall = (mapping: Mapping) => (report: CallReport) => deps.meter.erpCall({ mapping: mapping.name, call: report.call, statusClass: report.statusClass, attempts: report.attempts, seconds: report.seconds });

  async function deliverNow(mapping: Mapping, push: PushSpec, inputs: readonly unknown[], requestId: string, observer?: TraceObserver, trace?: TraceContext): Promise<PushServed['delivery']> {
    observer?.note?.(`push: stored as ${inputs.length} event${inputs.length === 1 ? '' : 's'}, the ERP is answered 202 at once, and the calls below run in the background (retried while the platform cannot take them)`);
    try {
      for (const input of inputs) {
        await deliverPush(push, input, { connection: deps.connection(mapping.platform as SystemSpec), observer, log: deps.log, requestId, trace, onCall: onCall(mapping) });
      }
      return { verdict: 'delivered' };
    } catch (error) {
      return { verdict: verdictOf(error).kind, message: error instanceof Error ? error.message : undefined };
    }
  }

  const answerer = (mapping: Mapping, name: string, requestId: string, seconds: () => number) => (status: number, result: string, body: PushBody, extra: Record<string, string> = {}, push?: PushSpec, input?: unknown): PushServed => {
    deps.meter.request({ mapping: mapping.name, operation: `push/${name}`, result, seconds: seconds() });
    return { status, body, headers: { 'x-request-id': requestId, ...extra }, push, result, input };
  };
  const refused = (mapping: Mapping, push: PushSpec, requestId: string, verdict: Extract<InboundVerdict, { ok: false }>, answer: ReturnType<typeof answerer>): PushServed => {
    deps.meter.refused({ mapping: mapping.name, reason: verdict.reason });
    deps.log.warn({ requestId, mapping: mapping.name, push: push.name, reason: verdict.reason }, `push refused: ${verdict.message}`);
    return answer(401, 'Refused', { error: `authentication required: ${verdict.message}` }, { 'www-authenticate': verdict.challenge }, push);
  };

  function refuseEarly(mapping: Mapping, name: string, request: PushRequest, requestId: string, seconds: () => number): PushServed | undefined {
    const push = mapping.pushes.get(name);
    if (!deps.checkAuth || !push || request.method.toUpperCase() !== 'POST') return undefined;
    const verdict = checkPushHeaders(push.auth, request.headers ?? {}, deps.now(), `adapter-engine/${mapping.name}/push/${push.name}`);
    return verdict.ok ? undefined : refused(mapping, push, requestId, verdict, answerer(mapping, name, requestId, seconds));
  }

  async function serve(mapping: Mapping, name: string, request: PushRequest, requestId: string, seconds: () => number, observer?: TraceObserver, trace?: TraceContext): Promise<PushServed> {
    const answer = answerer(mapping, name, requestId, seconds);
    const push = mapping.pushes.get(name);
    if (!push) return answer(404, 'NotFound', { error: `no push endpoint "${name}"; this mapping has ${[...mapping.pushes.keys()].join(', ') || 'none'}` });
    if (request.method.toUpperCase() !== 'POST') return answer(405, 'MethodNotAllowed', { error: `${request.method} is not allowed on ${request.path}; a push is a POST` }, { allow: 'POST' }, push);
    const pushLog = childLogger(deps.log, { requestId, mapping: mapping.name, push: name });
    let outcome;
    try {
      outcome = await acceptPush(mapping, push, request, requestId, deps, trace);
    } catch (error) {
      if (!(error instanceof OperationFailure)) throw error;
      pushLog.error({ store: deps.store?.location }, error.message);
      return answer(503, 'NotStored', { error: error.message }, { 'retry-after': '5' }, push);
    }
    switch (outcome.kind) {
      case 'refused':
        return refused(mapping, push, requestId, outcome.verdict, answer);
      case 'invalid':
        pushLog.warn({ problems: outcome.problems }, outcome.message);
        return answer(400, 'Invalid', { error: outcome.message, problems: outcome.problems }, {}, push, outcome.input);
      case 'not-json':
        return answer(415, 'NotJson', { error: outcome.message }, {}, push);
      case 'timed-out':
        pushLog.warn({ problems: outcome.problems }, outcome.message);
        return answer(503, 'TimedOut', { error: outcome.message, problems: outcome.problems }, { 'retry-after': '5' }, push, outcome.input);
      case 'accepted': {
        const { receipt, events } = outcome;
        pushLog.info({ events: receipt.eventIds.length, duplicate: receipt.duplicate }, receipt.duplicate ? 'push already accepted (same idempotency key); not stored again' : 'push accepted');
        const served = answer(202, receipt.duplicate ? 'Duplicate' : 'Accepted', { events: receipt.eventIds, duplicate: receipt.duplicate }, {}, push, outcome.input);
        if (deps.store) {
          if (receipt.duplicate) return served;
          // Named in the trace, so the request journal follows each event to the platform (requests show).
          for (const event of events) observer?.stored?.(event.id, event.orderingKey);
          deps.stored();
          return served;
        }
        return { ...served, delivery: await deliverNow(mapping, push, events.map((event) => event.input), requestId, observer, trace) };
      }
    }
  }

  return { serve, refuseEarly };
}

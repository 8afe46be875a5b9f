import type { Outcome } from '../contract/envelope';
import type { Validator } from '../contract/schema-registry';
import { OperationFailure } from '../errors';
import { TransportError, type HttpClient, type OutboundRequest, type OutboundResponse } from '../http/client';
import type { FlowOperation, Mapping, OutcomeRule } from '../mapping/model';
import { buildRequest } from './build-request';
import type { CallRecord, ExpressionContext } from './context';
import { evaluateAt } from './evaluate';

/**
 * One contract request through a flow operation: build and send each call, let the outcome rules judge
 * each answer, map the output, check it against the contract. Every failure leaves as an
 * OperationFailure; turning failures into result names is the caller's (failureOutcome) job.
 */

/** Hooks for the CLI's dry-run: each step as it happens. */
export interface TraceObserver {
  request?(request: OutboundRequest): void;
  response?(callName: string, response: OutboundResponse): void;
  rule?(callName: string, rule: OutcomeRule): void;
  /** Every outcome rule evaluated after a call, matched or not, so a dry run shows why a rule did not fire. */
  ruleChecked?(callName: string, index: number, rule: OutcomeRule, matched: boolean): void;
  output?(data: unknown): void;
  check?(problems: readonly { path: string; message: string }[]): void;
}

export interface PipelineDeps {
  readonly http: HttpClient;
  readonly observer?: TraceObserver;
}

async function firstMatchingRule(rules: readonly OutcomeRule[], context: ExpressionContext, callName: string, observer?: TraceObserver): Promise<OutcomeRule | undefined> {
  for (const [index, rule] of rules.entries()) {
    const matched = (await evaluateAt(rule.when, context, `outcomes[${index}].when`)) === true;
    observer?.ruleChecked?.(callName, index, rule, matched);
    if (matched) return rule;
  }
  return undefined;
}

async function messageOf(rule: OutcomeRule, context: ExpressionContext): Promise<string | null> {
  if (!rule.message) return null;
  const value = await evaluateAt(rule.message, context, 'outcome message');
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** JSONata gives a lone object for a one-element result and nothing for none; a list route wants a list. */
function asDeclaredShape(data: unknown, expectsList: boolean): unknown {
  if (!expectsList) return data === undefined ? null : data;
  if (data === undefined || data === null) return [];
  return Array.isArray(data) ? data : [data];
}

export async function runFlow(
  mapping: Mapping,
  operation: FlowOperation,
  input: unknown,
  checkData: Validator | undefined,
  deps: PipelineDeps,
): Promise<Outcome> {
  const { route } = operation;
  const calls: Record<string, CallRecord> = {};
  let successMessage: string | null = null;

  for (const call of operation.calls) {
    const request = await buildRequest(call, mapping.system, { input, calls });
    deps.observer?.request?.(request);
    let response: OutboundResponse;
    try {
      response = await deps.http.send(request);
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      throw new OperationFailure('ERP_UNREACHABLE', error.message, [{ path: `calls.${call.name}`, message: error.message }]);
    }
    deps.observer?.response?.(call.name, response);
    const record: CallRecord = { status: response.status, headers: response.headers, body: response.body };
    calls[call.name] = record;

    const ruleContext: ExpressionContext = { input, calls, response: record, call: call.name };
    const rule = await firstMatchingRule(operation.outcomes, ruleContext, call.name, deps.observer);
    if (rule) {
      deps.observer?.rule?.(call.name, rule);
      const externalMessage = await messageOf(rule, ruleContext);
      if (rule.result !== route.successResult) return { resultName: rule.result, externalMessage };
      successMessage = externalMessage;
      break; // a rule that declares success ends the call sequence
    }
    const target = `${request.method} ${request.url.pathname}`;
    // Redirects are never followed (see http/client.ts), so a 3xx is not the answer either: without this
    // an empty 302 would pass as a successful empty list.
    if (response.status >= 300) {
      const redirect = response.status < 400 ? ` (a redirect${response.headers.location ? ` to ${response.headers.location}` : ''}; redirects are not followed, check system.baseUrl)` : '';
      const message = `the external system answered ${response.status} to ${target}${redirect}`;
      throw new OperationFailure('ERP_ERROR_STATUS', message, [{ path: `calls.${call.name}`, message }]);
    }
    if (response.bodyError !== undefined) {
      const message = `${target}: ${response.bodyError}`;
      throw new OperationFailure('ERP_BODY_UNREADABLE', message, [{ path: `calls.${call.name}`, message }]);
    }
  }

  if (route.kind === 'event' || !operation.output) return { resultName: route.successResult, externalMessage: successMessage };

  const raw = await evaluateAt(operation.output, { input, calls }, 'output');
  const data = asDeclaredShape(raw, (route.dataSchema as { type?: string }).type === 'array');
  deps.observer?.output?.(data);
  const problems = checkData ? checkData(data).map((p) => ({ path: `data${p.path === '/' ? '' : p.path}`, message: p.message })) : [];
  deps.observer?.check?.(problems);
  if (problems.length > 0) {
    throw new OperationFailure('OUTPUT_INVALID', `the output does not match the contract: ${problems.slice(0, 3).map((p) => `${p.path} ${p.message}`).join('; ')}`, problems);
  }
  return { resultName: route.successResult, data, externalMessage: successMessage };
}

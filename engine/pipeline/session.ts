import { EMPTY_BODY } from '../http/client';
import { OperationFailure } from '../errors';
import { evaluateAt } from '../mapping/evaluate';
import type { CallSpec, SessionSpec } from '../mapping/model';
import type { ExpressionContext } from './context';
import { fetchAnswer, type Answer, type CallEnv } from './fetch-call';

/**
 * system.session: a login call whose answer every expression of the system's calls reads as `session`
 * (Odoo's uid, a session id in a body). Kept per connection (http/session-slot.ts); logged in again after
 * ttlMs, or once when an answer matches renewWhen, and that call is then sent once more.
 */

/** A login that did not give a session fails the request as the token endpoint does: retried by the outbox. */
function loginFailed(spec: SessionSpec, why: string): OperationFailure {
  const message = `the login (system.session.login, calls.${spec.login.name}) failed: ${why}`;
  return new OperationFailure('AUTH_FAILED', message, [{ path: 'system.session', message }]);
}

async function login(spec: SessionSpec, env: CallEnv): Promise<unknown> {
  const context: ExpressionContext = { input: undefined, calls: {} };
  const answer = await fetchAnswer(spec.login, context, spec.login.name, env);
  const { status } = answer.record;
  if (status >= 300) throw loginFailed(spec, `the system answered ${status}`);
  if (answer.bodyError !== undefined) throw loginFailed(spec, answer.bodyError === EMPTY_BODY ? 'the answer was empty' : 'the answer could not be read');
  const response = { ...context, response: answer.record, call: spec.login.name };
  const refusal = spec.login.refusal;
  if (refusal && (await evaluateAt(refusal.when, response, 'system.session.login: refusal.when')) === true) {
    const words = refusal.message ? await evaluateAt(refusal.message, response, 'system.session.login: refusal.message') : undefined;
    throw loginFailed(spec, `the system refused it: ${typeof words === 'string' ? words : JSON.stringify(words ?? 'no message')}`);
  }
  const session = await evaluateAt(spec.value, response, 'system.session.value');
  if (session === undefined || session === null) throw loginFailed(spec, `system.session.value (${spec.value.source}) gives nothing for its answer`);
  return session;
}

/** The context with the system's current session, logging in first when there is none; unchanged without system.session. */
export async function withSession(context: ExpressionContext, env: CallEnv): Promise<ExpressionContext> {
  const spec = env.connection.system.session;
  if (!spec) return context;
  return { ...context, session: await env.connection.session.current(() => login(spec, env), spec.ttlMs) };
}

/**
 * Sends one call; when its answer says the session ended (renewWhen), logs in again (once for all the
 * requests that saw that session end) and sends the call once more with the new session.
 */
export async function fetchWithSession(call: CallSpec, context: ExpressionContext, label: string, env: CallEnv): Promise<{ readonly answer: Answer; readonly context: ExpressionContext }> {
  const answer = await fetchAnswer(call, context, label, env);
  const spec = env.connection.system.session;
  if (!spec?.renewWhen || answer.bodyError !== undefined) return { answer, context };
  const ended = (await evaluateAt(spec.renewWhen, { ...context, response: answer.record, call: call.name }, `calls.${label}: system.session.renewWhen`)) === true;
  if (!ended) return { answer, context };
  env.observer?.note?.(`calls.${label}: the system says the session ended (system.session.renewWhen); logging in again and sending the call once more`);
  const renewed = { ...context, session: await env.connection.session.renew(context.session, () => login(spec, env)) };
  return { answer: await fetchAnswer(call, renewed, label, env), context: renewed };
}

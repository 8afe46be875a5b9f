/**
 * Assertions on the contract's envelope. Each call names the result with its number as the contract
 * lists it, so both the engine's answer and the route table (engine/contract/routes.ts) are checked
 * against the contract text.
 */
import { expect } from 'vitest';
import { findRoute, resultNumber } from '../../engine/contract/routes';
import type { Reply } from './engine';

const DATA_KEYS = ['data', 'externalMessage', 'isResultSuccess', 'result', 'validationStatus'];
const EVENT_KEYS = ['externalMessage', 'isResultSuccess', 'result', 'validationStatus'];

export function expectResult(reply: Reply, operationId: string, resultName: string, contractNumber: number): void {
  const route = findRoute(operationId);
  if (!route) throw new Error(`no route ${operationId}`);
  expect(resultNumber(route, resultName), `routes.ts: ${operationId} ${resultName}`).toBe(contractNumber);
  expect(reply.status).toBe(200);
  expect(reply.body.result, `${operationId} answered ${JSON.stringify(reply.body)}`).toBe(contractNumber);
  expect(reply.body.isResultSuccess).toBe(resultName === 'Succeed' || resultName === 'Success');
  // Event routes answer the envelope without data: the key must be absent, not null.
  expect(Object.keys(reply.body).sort()).toEqual(route.kind === 'event' ? EVENT_KEYS : DATA_KEYS);
}

/** A successful answer with no message and no problems. */
export function expectSuccess(reply: Reply, operationId: string, contractNumber: number): void {
  const route = findRoute(operationId);
  expectResult(reply, operationId, route?.successResult ?? '?', contractNumber);
  expect(reply.body.validationStatus).toBeNull();
  expect(reply.body.externalMessage).toBeNull();
}

/** validationStatus as the list of problems it is on a failure. */
export function problemsOf(reply: Reply): { path: string; message: string }[] {
  const problems = reply.body.validationStatus;
  expect(Array.isArray(problems), `validationStatus of ${JSON.stringify(reply.body)}`).toBe(true);
  return problems as { path: string; message: string }[];
}

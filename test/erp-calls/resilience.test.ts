import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../engine/core/engine';
import type { AttemptReport } from '../../engine/http/with-retry';
import { head, mappingFromText, startEngine, type RunningEngine } from '../support/engine';
import { drop, json, sequence, slow, startMisbehavingErp, status, type MisbehavingErp } from '../support/misbehaving-erp';

const LABEL = '/WorkOrders/WorkOrderExternalIndexableValueLabel';
const RETRY = 'retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20, retryAfterMaxMs: 1000 }';

const labelOperation = (callExtra = '', operationExtra = '') => `  GetExternalIndexableValueLabel:
${operationExtra}
    calls:
      - name: label
        method: GET
        path: /label
${callExtra}
    output: '{ "label": calls.label.body.text }'
`;

const statusOperation = (callExtra = '') => `  ReportWorkOrderStatus:
    calls:
      - name: status
        method: POST
        path: /status
        body: '{ "docNo": input.number }'
${callExtra}
`;

let erp: MisbehavingErp;
let engine: RunningEngine | undefined;
beforeEach(async () => {
  erp = await startMisbehavingErp();
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await erp.close();
});

const SUCCESS = { isResultSuccess: true, result: 2, validationStatus: null, externalMessage: null, data: { label: 'ERP id' } };

describe('retries with backoff', () => {
  it('answers 503 twice then 200: three ERP calls, success', async () => {
    erp.on('GET /label', sequence(status(503), status(503), json({ text: 'ERP id' })));
    engine = await startEngine(head(erp.url, RETRY) + labelOperation());
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.count('GET /label')).toBe(3);
  });

  it('stops after the declared attempts and reports the last answer', async () => {
    erp.on('GET /label', sequence(status(503)));
    engine = await startEngine(head(erp.url, RETRY) + labelOperation());
    const envelope = await engine.call('GET', LABEL);
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 1, data: null }); // AdapterApiClientFailed
    expect(JSON.stringify(envelope.validationStatus)).toContain('answered 503');
    expect(erp.count('GET /label')).toBe(3);
  });

  it('does not retry without a retry policy: a plain call is made once, as before', async () => {
    erp.on('GET /label', sequence(status(503), json({ text: 'ERP id' })));
    engine = await startEngine(head(erp.url) + labelOperation());
    expect(await engine.call('GET', LABEL)).toMatchObject({ isResultSuccess: false, result: 1 });
    expect(erp.count('GET /label')).toBe(1);
  });

  it('honours Retry-After of a 429', async () => {
    erp.on('GET /label', sequence(status(429, { 'retry-after': '0' }), json({ text: 'ERP id' })));
    engine = await startEngine(head(erp.url, RETRY) + labelOperation());
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.count('GET /label')).toBe(2);
  });

  it('gives up when Retry-After is longer than retryAfterMaxMs', async () => {
    erp.on('GET /label', sequence(status(429, { 'retry-after': '120' }), json({ text: 'ERP id' })));
    engine = await startEngine(head(erp.url, RETRY) + labelOperation());
    expect(await engine.call('GET', LABEL)).toMatchObject({ isResultSuccess: false, result: 1 });
    expect(erp.count('GET /label')).toBe(1);
  });

  it('retries a dropped connection', async () => {
    erp.on('GET /label', sequence(drop(), json({ text: 'ERP id' })));
    engine = await startEngine(head(erp.url, RETRY) + labelOperation());
    expect(await engine.call('GET', LABEL)).toEqual(SUCCESS);
    expect(erp.count('GET /label')).toBe(2);
  });

  it('retries a timeout and fails with AdapterApiClientFailed when every attempt times out', async () => {
    erp.on('GET /label', sequence(slow(400, { text: 'late' })));
    engine = await startEngine(head(erp.url, 'retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 5 }') + labelOperation('        timeoutMs: 50'));
    const envelope = await engine.call('GET', LABEL);
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 1 });
    expect(JSON.stringify(envelope.validationStatus)).toContain('no answer within 50 ms');
    expect(erp.count('GET /label')).toBe(2);
  });

  it('does not retry a POST unless the call declares it idempotent', async () => {
    erp.on('POST /status', sequence(status(503), status(503), { status: 201, body: {} }));
    engine = await startEngine(head(erp.url, RETRY) + statusOperation());
    expect(await engine.call('POST', '/WorkOrders/Status', { number: 'SO-1', status: 1 })).toMatchObject({ isResultSuccess: false, result: 3 }); // AdapterApiCallFailed
    expect(erp.count('POST /status')).toBe(1);
  });

  it('retries a POST declared idempotent', async () => {
    erp.on('POST /status', sequence(status(503), status(503), { status: 201, body: {} }));
    engine = await startEngine(head(erp.url, RETRY) + statusOperation('        retry: { idempotent: true }'));
    expect(await engine.call('POST', '/WorkOrders/Status', { number: 'SO-1', status: 1 })).toEqual({ isResultSuccess: true, result: 1, validationStatus: null, externalMessage: null });
    expect(erp.count('POST /status')).toBe(3);
  });

  it('retries a POST when system.retry says every call is idempotent', async () => {
    erp.on('POST /status', sequence(status(503), status(503), { status: 201, body: {} }));
    const idempotent = 'retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20, idempotent: true }';
    engine = await startEngine(head(erp.url, idempotent) + statusOperation());
    expect(await engine.call('POST', '/WorkOrders/Status', { number: 'SO-1', status: 1 })).toEqual({ isResultSuccess: true, result: 1, validationStatus: null, externalMessage: null });
    expect(erp.count('POST /status')).toBe(3);
  });

  it('does not retry a call that says idempotent: false under system.retry.idempotent: true', async () => {
    erp.on('POST /status', sequence(status(503), { status: 201, body: {} }));
    engine = await startEngine(head(erp.url, 'retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20, idempotent: true }') + statusOperation('        retry: { idempotent: false }'));
    expect(await engine.call('POST', '/WorkOrders/Status', { number: 'SO-2', status: 1 })).toMatchObject({ isResultSuccess: false, result: 3 });
    expect(erp.count('POST /status')).toBe(1);
  });
});

describe('deadline and concurrency', () => {
  it('ends the request at the operation deadline, however many attempts are left', async () => {
    erp.on('GET /label', sequence(slow(1000, { text: 'late' })));
    engine = await startEngine(head(erp.url, RETRY) + labelOperation('', '    deadlineMs: 150'));
    const envelope = await engine.call('GET', LABEL);
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 1 });
    expect(JSON.stringify(envelope.validationStatus)).toContain("operation's deadline of 150 ms");
    expect(erp.count('GET /label')).toBe(1);
  });

  it('never has more requests in flight to the ERP than system.maxConcurrency', async () => {
    erp.on('GET /label', sequence(slow(30, { text: 'ERP id' })));
    engine = await startEngine(head(erp.url, 'maxConcurrency: 2') + labelOperation());
    const envelopes = await Promise.all(Array.from({ length: 8 }, () => engine!.call('GET', LABEL)));
    expect(envelopes).toEqual(Array.from({ length: 8 }, () => SUCCESS));
    expect(erp.count('GET /label')).toBe(8);
    expect(erp.maxInFlight).toBe(2);
  });
});

describe('attempts are visible', () => {
  it('reports each attempt to the TraceObserver and the final count in the log', async () => {
    erp.on('GET /label', sequence(status(503), status(503), json({ text: 'ERP id' })));
    const mapping = mappingFromText(head(erp.url, RETRY) + labelOperation());
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'debug' }, new Writable({ write(chunk, _enc, next) { lines.push(JSON.parse(String(chunk))); next(); } }));
    const attempts: AttemptReport[] = [];
    const answers: { attempts: number; cached: boolean }[] = [];
    const engine = createEngine({ mappings: [mapping], log });
    try {
      const answer = await engine.handle({ method: 'GET', path: LABEL }, {
        observer: { attempt: (_label, report) => attempts.push(report), response: (_label, _response, info) => answers.push(info!) },
      });
      expect(answer.outcome).toMatchObject({ resultName: 'Success', data: { label: 'ERP id' } });
    } finally {
      await engine.close();
    }
    expect(attempts.map((a) => [a.attempt, a.of, a.status, a.retryInMs !== undefined])).toEqual([[1, 3, 503, true], [2, 3, 503, true], [3, 3, 200, false]]);
    expect(answers).toEqual([{ attempts: 3, cached: false }]);
    expect(lines.filter((l) => l.msg === 'erp call')).toMatchObject([{ call: 'label', status: 200, attempts: 3 }]);
    expect(lines.filter((l) => String(l.msg).includes('retrying'))).toHaveLength(2);
    expect(erp.count()).toBe(3);
  });
});

import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../engine/errors';
import { checkMappingText } from '../../engine/mapping/load';
import { head } from '../support/engine';

/** Connectivity settings are checked when the mapping loads, each problem at its line and column. */
const errorsOf = (text: string, env: Record<string, string> = {}) =>
  checkMappingText(text, 'test.yaml', env).issues.filter((i) => i.severity === 'error').map(formatIssue);

const statusCall = (extra: string, method = 'POST') => `  ReportWorkOrderStatus:
    calls:
      - name: status
        method: ${method}
        path: /status
${extra.replace(/^/gm, '        ')}
`;

describe('connectivity settings at load', () => {
  it('refuses retries of a POST that is not declared idempotent', () => {
    expect(errorsOf(head('http://erp.local') + statusCall('retry: { attempts: 3 }'))).toEqual([
      'test.yaml:13:28  operations.ReportWorkOrderStatus.calls[0].retry.attempts is 3, but a POST is only repeated when the call (or system.retry) says idempotent: true (repeating it could, for example, book twice)',
    ]);
    expect(errorsOf(head('http://erp.local') + statusCall('retry: { attempts: 3, idempotent: true }'))).toEqual([]);
  });

  it('refuses retries of a GET the mapping marks as not idempotent', () => {
    expect(errorsOf(head('http://erp.local') + statusCall('retry: { attempts: 2, idempotent: false }', 'GET'))).toEqual([
      'test.yaml:13:28  operations.ReportWorkOrderStatus.calls[0].retry.attempts is 2, but the call says idempotent: false',
    ]);
  });

  it('takes system.retry.idempotent as every call\'s default, which a call may override', () => {
    const system = 'retry: { attempts: 3, idempotent: true }';
    expect(errorsOf(head('http://erp.local', system) + statusCall(''))).toEqual([]);
    const { mapping } = checkMappingText(head('http://erp.local', system) + statusCall(''), 'test.yaml', {});
    expect(mapping?.operations.get('ReportWorkOrderStatus')).toMatchObject({ calls: [{ retry: { attempts: 3 } }] });
    const own = checkMappingText(head('http://erp.local', system) + statusCall('retry: { idempotent: false }'), 'test.yaml', {});
    expect(own.mapping?.operations.get('ReportWorkOrderStatus')).toMatchObject({ calls: [{ retry: { attempts: 1 } }] });
    expect(errorsOf(head('http://erp.local', 'retry: { idempotent: false }') + statusCall('retry: { attempts: 2 }', 'GET'))).toEqual([
      'test.yaml:13:28  operations.ReportWorkOrderStatus.calls[0].retry.attempts is 2, but system.retry says idempotent: false (the call may say idempotent: true in its own retry)',
    ]);
  });

  it('explains unknown and missing fan-out and cache settings', () => {
    expect(errorsOf(head('http://erp.local') + statusCall('forEach: { list: input, parallel: 3 }\ncache: { maxEntries: 10 }'))).toEqual([
      'test.yaml:13:33  unknown setting "parallel" in operations.ReportWorkOrderStatus.calls[0].forEach (allowed: list, chunk, maxConcurrency, onError)',
      'test.yaml:14:16  operations.ReportWorkOrderStatus.calls[0].cache is missing the required setting "ttlMs"',
    ]);
  });

  it('refuses a fan-out concurrency out of range and a bad list expression', () => {
    const errors = errorsOf(head('http://erp.local') + statusCall('forEach: { list: "input.(", maxConcurrency: 0 }'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^test\.yaml:13:\d+ {2}operations\.ReportWorkOrderStatus\.calls\[0\]\.forEach\.maxConcurrency must be >= 1/);
    expect(errorsOf(head('http://erp.local') + statusCall('forEach: { list: "input.(" }'))[0]).toMatch(/JSONata expression does not compile/);
  });

  it('keeps deadlineMs for operations that call the ERP', () => {
    const text = head('http://erp.local') + '  GetExternalIndexableValueLabel:\n    deadlineMs: 1000\n    static: { label: x }\n';
    expect(errorsOf(text)).toEqual(['test.yaml:9:5  GetExternalIndexableValueLabel has "static" together with deadlineMs; a static answer stands alone']);
  });

  it('warns when a credential travels in system.headers', () => {
    const text = head('http://erp.local', 'headers: { Authorization: "Bearer ${TOKEN}" }') + statusCall('');
    const warnings = checkMappingText(text, 'test.yaml', { TOKEN: 't' }).issues.filter((i) => i.code === 'CREDENTIAL_IN_HEADERS');
    expect(warnings.map(formatIssue)).toEqual(['test.yaml:6:29  warning: system.headers.Authorization looks like a credential; declare it under system.auth instead, which keeps it out of logs and dry-run output']);
  });

  it('gives a plain call the plain model: no retry, pagination, fan-out or cache', () => {
    const { mapping } = checkMappingText(head('http://erp.local') + statusCall(''), 'test.yaml', {});
    const operation = mapping!.operations.get('ReportWorkOrderStatus');
    expect(operation).toMatchObject({ mode: 'flow', deadlineMs: undefined });
    if (operation?.mode !== 'flow') throw new Error('expected a flow operation');
    const call = operation.calls[0];
    expect(call).toMatchObject({ retry: { attempts: 1 }, paginate: undefined, forEach: undefined, cache: undefined });
    expect(mapping!.system).toMatchObject({ auth: { type: 'none' }, tls: undefined, maxConcurrency: 16 });
  });
});

/**
 * `safe: true` on a call: the mapping says a POST (a SOAP Read, a SuiteQL query) cannot change the ERP.
 * canChangeErp is the one definition of "a write" that dry-run and the studio use.
 */
import { describe, expect, it } from 'vitest';
import { checkMappingText } from '../../engine/mapping/load';
import { canChangeErp, type CallSpec } from '../../engine/mapping/model';
import { FILE, HEADER, errorsOf, yaml } from '../support/mapping-issues';

const text = yaml(`${HEADER}operations:`, '  GetItem:',
  '    calls:',
  '      - name: query', '        method: POST', '        path: /suiteql', "        body: '{ \"q\": \"SELECT id FROM item\" }'", '        safe: true',
  '      - name: touch', '        method: POST', '        path: /items/touch',
  '      - name: read', '        method: GET', '        path: /items/1',
  "    output: '{ \"number\": \"1\", \"description\": \"x\" }'");

function callsOf(source: string): readonly CallSpec[] {
  const { mapping } = checkMappingText(source, FILE, {});
  const operation = mapping?.operations.get('GetItem');
  if (operation?.mode !== 'flow') throw new Error('GetItem did not load as a flow');
  return operation.calls;
}

describe('safe: true on a call', () => {
  it('loads, and only a call that is neither GET nor marked safe can change the ERP', () => {
    expect(errorsOf(text)).toEqual([]);
    expect(callsOf(text).map((call) => [call.name, call.safe, canChangeErp(call)])).toEqual([
      ['query', true, false],
      ['touch', false, true],
      ['read', false, false],
    ]);
  });

  it('takes only true or false', () => {
    const errors = errorsOf(text.replace('safe: true', 'safe: sometimes'));
    expect(errors.map((issue) => issue.line)).toEqual([12]);
  });
});

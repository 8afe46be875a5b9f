/**
 * Issue 30: `adapter-engine test` warns when a recorded XML answer repeats an element the call does not
 * declare in lists: (an answer with one such element reads as an object, not a list), and compares an
 * XML request body as an infoset (another prefix for the same namespace, another attribute order).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTestFile } from '../../engine/testing/test-runner';
import { head } from '../support/engine';

const NS = 'urn:microsoft-dynamics-schemas/page/salesorder';
let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const mapping = (lists: string) => `${head('http://erp.local/ws', `xml:\n  namespaces: { so: "${NS}" }`)}  GetWorkOrderByCode:
    calls:
      - name: order
        method: POST
        path: /Page/SalesOrder
        soap: { version: "1.1", action: "${NS}:Read" }
        body: '{ "so:Read": { "so:No": input.Code } }'
        lists: [${lists}]
    output: |
      ( $o := calls.order.result.SalesOrder;
        { "number": $o."@No", "dueDate": "2026-12-01T00:00:00Z", "requests": [$o.Line.{ "itemNumber": Item, "requestedAmount": 1, "unitOfMeasure": 1, "requestType": 1 }] } )
`;

const tests = (expectedBody: string) => `cases:
  - name: two lines
    operation: GetWorkOrderByCode
    input: { Code: SO-1 }
    answers:
      order:
        xml: '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><Read_Result xmlns="${NS}"><SalesOrder No="SO-1"><Line><Item>A</Item></Line><Line><Item>B</Item></Line></SalesOrder></Read_Result></s:Body></s:Envelope>'
    expect:
      result: Succeed
      data: { number: SO-1, requests: [{ itemNumber: A }, { itemNumber: B }] }
      requests:
        order:
          soapAction: "${NS}:Read"
          body: '${expectedBody}'
`;

function run(lists: string, expectedBody: string) {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xml-tests-'));
  fs.writeFileSync(path.join(dir, 'nav.yaml'), mapping(lists));
  fs.writeFileSync(path.join(dir, 'nav.test.yaml'), tests(expectedBody));
  return runTestFile(path.join(dir, 'nav.test.yaml'), {});
}

const SAME_INFOSET = `<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><x:Read xmlns:x="${NS}"><x:No>SO-1</x:No></x:Read></e:Body></e:Envelope>`;

describe('mapping tests of XML calls', () => {
  it('compare the request as an infoset and warn about an undeclared repeating element, at the call', async () => {
    const result = await run('SalesLines', SAME_INFOSET);
    expect(result.cases.map((c) => [c.passed, c.mismatches])).toEqual([[true, []]]);
    expect(result.warnings).toMatchObject([{ code: 'XML_LIST_UNDECLARED', line: 11, severity: 'warning' }]);
    expect(result.warnings[0]!.message).toContain('lists: [Line]');
  });

  it('a declared list gives no warning; another element text is a difference', async () => {
    const declared = await run('Line', SAME_INFOSET);
    expect(declared.warnings).toEqual([]);
    const other = await run('Line', SAME_INFOSET.replace('SO-1', 'SO-2'));
    expect(other.cases[0]).toMatchObject({ passed: false, mismatches: [{ path: expect.stringContaining('requests.order.body') }] });
  });
});

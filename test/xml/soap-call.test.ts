/**
 * Issue 30: a SOAP call end to end against a real HTTP server: the envelope and SOAPAction on the wire,
 * every value escaped, the answer read by namespace URI (any prefix), a fault mapped by a rule or, when
 * no rule claims it, the call's failure with the faultstring.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { head, startEngine, type RunningEngine } from '../support/engine';
import { startMisbehavingErp, type MisbehavingErp } from '../support/misbehaving-erp';

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
afterEach(async () => {
  await engine?.close();
  await erp?.close();
  engine = undefined;
  erp = undefined;
});

const NS = 'urn:microsoft-dynamics-schemas/page/salesorder';
const xmlAnswer = (status: number, body: string) => ({ status, raw: body, headers: { 'content-type': 'text/xml; charset=utf-8' } });
const envelope = (inner: string, prefix = 'so') => `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>${inner.replaceAll('P:', `${prefix}:`).replace('xmlns:P', `xmlns:${prefix}`)}</s:Body></s:Envelope>`;
const readResult = (order: string) => envelope(`<P:Read_Result xmlns:P="${NS}"><P:SalesOrder No="${order}"><P:Description>Nuts &amp; Bolts &lt;M8&gt;</P:Description><P:Due><![CDATA[2026-12-01]]></P:Due><P:SalesLines><P:Sales_Order_Line><P:Item>A-1</P:Item><P:Quantity>007</P:Quantity></P:Sales_Order_Line></P:SalesLines></P:SalesOrder></P:Read_Result>`);
const fault = (text: string) => `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode>a:Microsoft.Dynamics.Nav.Types.Exceptions.NavNCLRecordNotFoundException</faultcode><faultstring xml:lang="en-US">${text}</faultstring><detail><string>${text}</string></detail></s:Fault></s:Body></s:Envelope>`;

const mapping = (url: string) => `${head(url, `xml:\n  namespaces: { so: "${NS}" }`)}  GetWorkOrderByCode:
    calls:
      - name: order
        method: POST
        path: /Page/SalesOrder
        soap: { version: "1.1", action: "${NS}:Read" }
        body: '{ "so:Read": { "so:No": input.Code } }'
        lists: [Sales_Order_Line]
    outcomes:
      - when: $contains(response.fault.string, "does not exist")
        result: WorkOrderDoesNotExist
        message: response.fault.string
    output: |
      ( $o := calls.order.result.SalesOrder;
        { "number": $o."@No", "dueDate": $o.Due & "T00:00:00Z", "externalData": $o.Description,
          "requests": [$o.SalesLines.Sales_Order_Line.{ "itemNumber": Item, "requestedAmount": $number(Quantity), "unitOfMeasure": 1, "requestType": 1 }] } )
`;

describe('a SOAP call', () => {
  it('sends the envelope with SOAPAction, escapes every value, and reads the answer by namespace URI whatever the prefix', async () => {
    erp = await startMisbehavingErp({ basePath: '/ws' });
    erp.on('POST /Page/SalesOrder', () => xmlAnswer(200, readResult('SO-1')));
    engine = await startEngine(mapping(erp.url));
    const reply = await engine.get('/WorkOrders/Code?Code=' + encodeURIComponent('ops</so:No><so:No>x'));
    expect(reply.body).toMatchObject({ isResultSuccess: true, data: { number: 'SO-1', dueDate: '2026-12-01T00:00:00Z', externalData: 'Nuts & Bolts <M8>', requests: [{ itemNumber: 'A-1', requestedAmount: 7 }] } });
    const [sent] = erp.requests;
    expect(sent!.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(sent!.headers.soapaction).toBe(`"${NS}:Read"`);
    expect(sent!.body).toContain('<so:No>ops&lt;/so:No&gt;&lt;so:No&gt;x</so:No>');

    erp.on('POST /Page/SalesOrder', () => xmlAnswer(200, readResult('SO-2').replaceAll('so:', 'x:').replace('xmlns:so', 'xmlns:x')));
    const other = await engine.get('/WorkOrders/Code?Code=SO-2');
    expect(other.body).toMatchObject({ isResultSuccess: true, data: { number: 'SO-2' } });
  });

  it('a fault a rule claims gives its result; one no rule claims fails with the faultstring, whatever the HTTP status', async () => {
    erp = await startMisbehavingErp({ basePath: '/ws' });
    erp.on('POST /Page/SalesOrder', () => xmlAnswer(500, fault('The Sales Header does not exist.')));
    engine = await startEngine(mapping(erp.url));
    const missing = await engine.get('/WorkOrders/Code?Code=SO-9');
    expect(missing.body).toMatchObject({ isResultSuccess: false, externalMessage: 'The Sales Header does not exist.' });
    expect(missing.body.result).toBe(2); // WorkOrderDoesNotExist

    erp.on('POST /Page/SalesOrder', () => xmlAnswer(200, fault('You do not have permission.')));
    const refused = await engine.get('/WorkOrders/Code?Code=SO-9');
    expect(refused.body).toMatchObject({ isResultSuccess: false, externalMessage: 'You do not have permission.' });
  });

  it('a DOCTYPE or a truncated answer fails the call, never a partial view', async () => {
    erp = await startMisbehavingErp({ basePath: '/ws' });
    erp.on('POST /Page/SalesOrder', () => xmlAnswer(200, '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>'));
    engine = await startEngine(mapping(erp.url));
    const doctype = await engine.get('/WorkOrders/Code?Code=SO-1');
    expect(doctype.body).toMatchObject({ isResultSuccess: false });
    erp.on('POST /Page/SalesOrder', () => xmlAnswer(200, readResult('SO-1').slice(0, 200)));
    const truncated = await engine.get('/WorkOrders/Code?Code=SO-1');
    expect(truncated.body).toMatchObject({ isResultSuccess: false });
  });

  it('an unreadable XML answer fails before the outcome rules: a rule testing for an absent element cannot call it "not found"', async () => {
    erp = await startMisbehavingErp({ basePath: '/ws' });
    const absentRule = mapping(erp.url).replace('$contains(response.fault.string, "does not exist")', '$not($exists(response.result.SalesOrder))');
    const hostile = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>';
    for (const [status, body] of [[200, readResult('SO-1').slice(0, 200)], [200, hostile], [500, fault('The Sales Header does not exist.').slice(0, 150)]] as const) {
      erp.on('POST /Page/SalesOrder', () => xmlAnswer(status, body));
      engine = await startEngine(absentRule);
      const answer = await engine.engine.handle({ method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-1' } });
      expect(answer.outcome?.resultName).not.toBe('WorkOrderDoesNotExist');
      expect(answer.envelope).toMatchObject({ isResultSuccess: false, data: null });
      expect(answer.failure?.kind).toBe(status === 200 ? 'ERP_BODY_UNREADABLE' : 'ERP_ERROR_STATUS');
      await engine.close();
      engine = undefined;
    }
  });
});

/**
 * Issue 39 on a SOAP stand-in (a real HTTP server answering XML): a fault that quotes the password the
 * engine sent reaches the platform masked; a 401 is never "not found" for a rule that does not test the
 * status; `system.emptyValues` applies to an XML answer's view (NAV's blank date 0001-01-01 reached the
 * platform as a date); an unreadable XML answer says what was wrong with it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findRoute, resultNumber } from '../../engine/contract/routes';
import { closeAfterEach, head, startEngine, type RunningEngine } from '../support/engine';
import { expectRefused } from '../support/jsonrpc-engine';
import { startMisbehavingErp, type MisbehavingErp, type ReceivedRequest } from '../support/misbehaving-erp';

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

const NS = 'urn:microsoft-dynamics-schemas/page/salesorder';
const PASSWORD = 'Nav-Pa55word!';
const xmlAnswer = (status: number, body: string, contentType = 'text/xml; charset=utf-8') => ({ status, raw: body, headers: { 'content-type': contentType } });
const envelope = (inner: string) => `<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>${inner}</s:Body></s:Envelope>`;
const fault = (exception: string, text: string) => envelope(`<s:Fault><faultcode xmlns:a="urn:microsoft-dynamics-schemas/error">a:Microsoft.Dynamics.Nav.Types.Exceptions.${exception}</faultcode><faultstring xml:lang="en-US">${text}</faultstring></s:Fault>`);
const readResult = (shipment: string) => envelope(`<Read_Result xmlns="${NS}"><SalesOrder><No>SO-1</No><Due_Date>2026-12-01</Due_Date><Shipment_Date>${shipment}</Shipment_Date></SalesOrder></Read_Result>`);

/** The password of the Basic credentials a request carried. */
const passwordOf = (request: ReceivedRequest) => Buffer.from(String(request.headers.authorization).replace(/^Basic /, ''), 'base64').toString('utf8').split(':')[1];

function mapping(url: string, options: { emptyValues?: boolean; rule?: string } = {}): string {
  const system = `auth: { type: basic, username: wms, password: "\${NAV_PASSWORD}" }\nxml:\n  namespaces: { so: "${NS}" }${options.emptyValues ? '\nemptyValues: ["0001-01-01"]' : ''}`;
  return `${head(url, system)}  GetWorkOrderByCode:
    calls:
      - name: order
        method: POST
        path: /Page/SalesOrder
        soap: { version: "1.1", action: "${NS}:Read" }
        body: '{ "so:Read": { "so:No": input.Code } }'
    outcomes:
      - when: ${options.rule ?? '$contains(response.fault.string, "does not exist")'}
        result: WorkOrderDoesNotExist
        message: response.fault.string
    output: |
      ( $o := calls.order.result.SalesOrder;
        { "number": $o.No, "dueDate": $o.Due_Date & "T00:00:00Z", "requests": [],
          "customerRequiredDeliveryDate": $o.Shipment_Date ? $o.Shipment_Date & "T00:00:00Z" } )
`;
}

async function start(options: { emptyValues?: boolean; rule?: string } = {}): Promise<{ erp: MisbehavingErp; engine: RunningEngine }> {
  erp = await startMisbehavingErp({ basePath: '/ws' });
  engine = await startEngine(mapping(erp.url, options), { env: { NAV_PASSWORD: PASSWORD } });
  return { erp, engine };
}

const byCode = (target: RunningEngine) => target.get('/WorkOrders/Code?Code=SO-1');

describe('a SOAP ERP that quotes the password it got', () => {
  it('an unclaimed fault quoting it: externalMessage and validationStatus hold *** instead', async () => {
    const { erp, engine } = await start();
    erp.on('POST /Page/SalesOrder', (request) => xmlAnswer(500, fault('NavPermissionException', `The user wms with password ${passwordOf(request)} may not read the Sales Order page.`)));
    const reply = await byCode(engine);
    expectRefused(reply, 'GetWorkOrderByCode', 'AdapterApiCallFailed', 'The user wms with password *** may not read the Sales Order page.');
    expect(JSON.stringify(reply.body)).not.toContain(PASSWORD);
  });

  it('a fault a rule claims, its message quoting it: the rule\'s result, the message masked', async () => {
    const { erp, engine } = await start();
    erp.on('POST /Page/SalesOrder', (request) => xmlAnswer(500, fault('NavNCLRecordNotFoundException', `The Sales Header does not exist (asked by wms/${passwordOf(request)}).`)));
    expectRefused(await byCode(engine), 'GetWorkOrderByCode', 'WorkOrderDoesNotExist', 'The Sales Header does not exist (asked by wms/***).');
  });
});

describe('a wrong password on a SOAP ERP', () => {
  it('a "not found" rule that does not test the status never claims the 401: the credentials were refused', async () => {
    const { erp, engine } = await start({ rule: '$not($exists(response.result.SalesOrder))' });
    erp.on('POST /Page/SalesOrder', () => xmlAnswer(401, '<html><body>401 - Unauthorized</body></html>', 'text/html'));
    expectRefused(await byCode(engine), 'GetWorkOrderByCode', 'AdapterApiCallFailed', 'the external system refused the adapter\'s credentials (HTTP 401)');
    // The same rule still judges a readable answer without the order.
    erp.on('POST /Page/SalesOrder', () => xmlAnswer(200, envelope(`<Read_Result xmlns="${NS}"/>`)));
    expect((await byCode(engine)).body).toMatchObject({ isResultSuccess: false, result: resultNumber(findRoute('GetWorkOrderByCode')!, 'WorkOrderDoesNotExist') });
  });
});

describe('system.emptyValues on XML answers', () => {
  it('NAV\'s blank date 0001-01-01 is absent for the mapping: the optional date is left out', async () => {
    const { erp, engine } = await start({ emptyValues: true });
    erp.on('POST /Page/SalesOrder', () => xmlAnswer(200, readResult('0001-01-01')));
    const reply = await byCode(engine);
    expect(reply.body).toMatchObject({ isResultSuccess: true, data: { number: 'SO-1', dueDate: '2026-12-01T00:00:00Z' } });
    expect(Object.keys(reply.body.data as object)).not.toContain('customerRequiredDeliveryDate');
    erp.on('POST /Page/SalesOrder', () => xmlAnswer(200, readResult('2026-12-24')));
    expect((await byCode(engine)).body).toMatchObject({ data: { customerRequiredDeliveryDate: '2026-12-24T00:00:00Z' } });
  });

  it('without the setting the blank date is a date', async () => {
    const { erp, engine } = await start();
    erp.on('POST /Page/SalesOrder', () => xmlAnswer(200, readResult('0001-01-01')));
    expect((await byCode(engine)).body).toMatchObject({ isResultSuccess: true, data: { customerRequiredDeliveryDate: '0001-01-01T00:00:00Z' } });
  });
});

describe('an XML answer that cannot be read says what was wrong', () => {
  const told = async (answer: ReturnType<typeof xmlAnswer>) => {
    erp!.on('POST /Page/SalesOrder', () => answer);
    const reply = await byCode(engine!);
    expect(reply.body).toMatchObject({ isResultSuccess: false, result: resultNumber(findRoute('GetWorkOrderByCode')!, 'AdapterApiCallFailed') });
    return reply.body.validationStatus;
  };

  it('a DOCTYPE, a document that is not well-formed (with its line), an empty answer', async () => {
    await start();
    expect(await told(xmlAnswer(200, '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>'))).toEqual([
      { path: 'calls.order', message: 'the external system answered 200 with XML with a DOCTYPE, which is refused (no DTD or entity is ever read) (content-type text/xml; charset=utf-8)' },
    ]);
    expect(await told(xmlAnswer(200, readResult('2026-12-24').replace('</Due_Date>', '</Due>').replace('><s:Body>', '>\n<s:Body>')))).toEqual([
      { path: 'calls.order', message: expect.stringMatching(/^the external system answered 200 with XML that is not well-formed at line 2, column \d+: .+ \(content-type text\/xml; charset=utf-8\)$/) as unknown as string },
    ]);
    expect(await told(xmlAnswer(200, ''))).toEqual([{ path: 'calls.order', message: 'the external system answered 200 with an empty body; an XML document was expected' }]);
  });
});

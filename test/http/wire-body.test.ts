/**
 * Issue 29, item 7: what a call sends is what goes on the wire. A Content-Type the mapping sets replaces
 * the engine's in any letter case (it was sent besides `content-type: application/json`), a text body
 * under a non-JSON type goes as that text (it went JSON-quoted), and `adapter-engine test` compares the
 * request as it went on the wire, so a case expecting a text body fails when the wire carried it quoted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTestFile } from '../../engine/testing/test-runner';
import { head, startEngine, type RunningEngine } from '../support/engine';
import { json, startMisbehavingErp, type MisbehavingErp } from '../support/misbehaving-erp';

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
afterEach(async () => {
  await engine?.close();
  await erp?.close();
  engine = undefined;
  erp = undefined;
});

const operation = (headers: string) => `  CancelPutWallItem:
    calls:
      - name: cancel
        method: POST
        path: /cancel
        headers: { ${headers} }
        body: '"<cancel><code>" & input.workOrderNumber & "</code></cancel>"'
`;

describe('the body on the wire', () => {
  it('a Content-Type the mapping sets, in any letter case, is the only one, and a text body goes as that text', async () => {
    erp = await startMisbehavingErp({ basePath: '/api' });
    erp.on('POST /cancel', () => json({ ok: true }));
    engine = await startEngine(head(erp.url) + operation('Content-Type: text/xml'));
    const reply = await engine.post('/WorkOrders/CancelPutWallItem', { workOrderNumber: 'WO-1', putWallCode: 'PW', containerCode: 'C' });
    expect(reply.body).toMatchObject({ isResultSuccess: true });
    const [sent] = erp.requests;
    expect(sent!.headers['content-type']).toBe('text/xml');
    expect(sent!.body).toBe('<cancel><code>WO-1</code></cancel>');
  });

  it('adapter-engine test compares the wire: a text body sent as JSON fails a case expecting that text', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wire-'));
    try {
      const expectText = (contentType: string) => {
        fs.writeFileSync(path.join(dir, 'm.yaml'), head('http://erp.local/api') + operation(contentType));
        fs.writeFileSync(path.join(dir, 'm.test.yaml'), `cases:
  - name: cancel
    operation: CancelPutWallItem
    input: { workOrderNumber: WO-1, putWallCode: PW, containerCode: C }
    answers: { cancel: { status: 200, body: { ok: true } } }
    expect:
      result: Succeed
      requests: { cancel: { body: "<cancel><code>WO-1</code></cancel>" } }
`);
        return runTestFile(path.join(dir, 'm.test.yaml'), {});
      };
      const quoted = await expectText('X-Site: WH-1');
      expect(quoted.cases[0]).toMatchObject({ passed: false, mismatches: [{ path: 'requests.cancel.body', expected: '<cancel><code>WO-1</code></cancel>', actual: '"<cancel><code>WO-1</code></cancel>"' }] });
      const asText = await expectText('content-type: text/xml');
      expect(asText.cases[0]).toMatchObject({ passed: true });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * responseType: binary and error answers (issue 17): a status of 400 or more is decoded by its content
 * type, so outcome rules read a JSON error body as JSON (not as Base64) and an error page as text.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, head, type RunningEngine, startEngine } from '../support/engine';
import { startErpAnswering, type Answer, type MisbehavingErp } from '../support/misbehaving-erp';

const OPERATION = `  GetItemImage:
    calls:
      - name: image
        method: GET
        path: /images/{input.number}
        responseType: binary
    outcomes:
      - when: response.status = 404 and response.body.error.code = 'NO_IMAGE'
        result: ImageDoesNotExist
        message: response.body.error.message
      - when: response.status = 404 and $contains(response.body, 'kein Bild')
        result: ImageDoesNotExist
        message: "'from the error page'"
    output: calls.image.body
`;

let erp: MisbehavingErp | undefined;
let engine: RunningEngine | undefined;
closeAfterEach(afterEach, () => [engine, erp]);

async function imageAnswer(answer: Answer) {
  erp = await startErpAnswering(() => answer);
  engine = await startEngine(head(erp.url) + OPERATION);
  return engine.call('GET', '/Items/IntegrateImage/A-1');
}

describe('error answers of a binary call', () => {
  it('a JSON error body is read as JSON by the outcome rules', async () => {
    const envelope = await imageAnswer({ status: 404, body: { error: { code: 'NO_IMAGE', message: 'article A-1 has no picture' } }, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(envelope).toMatchObject({ isResultSuccess: false, externalMessage: 'article A-1 has no picture' });
  });

  it('an HTML error page is read as text', async () => {
    const envelope = await imageAnswer({ status: 404, raw: '<html><body>kein Bild</body></html>', headers: { 'content-type': 'text/html' } });
    expect(envelope).toMatchObject({ isResultSuccess: false, externalMessage: 'from the error page' });
  });

  it('an error answer of another type stays Base64, and an unclaimed error status still fails naming it', async () => {
    const envelope = await imageAnswer({ status: 500, raw: Buffer.from([1, 2, 3]), headers: { 'content-type': 'application/octet-stream' } });
    expect(envelope.isResultSuccess).toBe(false);
    expect(JSON.stringify(envelope.validationStatus)).toContain('the external system answered 500');
  });
});

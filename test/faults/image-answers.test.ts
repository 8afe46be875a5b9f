/**
 * Issue 18, item 6: an image of ~3.5 MB failed with "Maximum call stack size exceeded" in the Base64
 * check (a backtracking regular expression), and an HTML page or invalid JSON the ERP sent instead of
 * the picture was answered as the image (Success) on GetItemImage (responseType: binary).
 *
 * Decided: a binary call's answer whose content-type says text (text/*, JSON, XML, except image/*) is
 * unreadable (ERP_BODY_UNREADABLE → AdapterApiClientFailed on this route), and the contract's image
 * answer must be Base64 of bytes that start like an image (PNG, JPEG, GIF, WebP, BMP, TIFF, ICO,
 * AVIF/HEIC, SVG), whatever the content-type said (otherwise OUTPUT_INVALID → OperationFailed).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadExampleMapping, startEngine, type RunningEngine } from '../support/engine';
import { startErpAnswering, type Answer, type MisbehavingErp } from '../support/misbehaving-erp';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const answers = new Map<string, Answer>();
let erp: MisbehavingErp;
let engine: RunningEngine;

beforeAll(async () => {
  erp = await startErpAnswering((request) => answers.get(request.path) ?? { status: 404, body: { error: 'no such article' } });
  engine = await startEngine(loadExampleMapping(erp.url));
});
afterAll(async () => {
  await engine.close();
  await erp.close();
});

/** The ERP answers the image of `article` with these bytes. */
function image(article: string, bytes: Buffer | string, contentType?: string): string {
  answers.set(`/articles/${article}/image`, { status: 200, raw: bytes, headers: contentType === undefined ? { 'content-type': '' } : { 'content-type': contentType } });
  return `/Items/IntegrateImage/${article}`;
}

describe('image answers (issue 18, item 6)', () => {
  it('a 3.5 MB PNG is the image: Success (5), no stack overflow in the Base64 check', async () => {
    const png = Buffer.concat([PNG, randomBytes(3_500_000)]);
    const reply = await engine.get(image('BIG', png, 'image/png'));
    expect(reply.body).toMatchObject({ isResultSuccess: true, result: 5, validationStatus: null });
    expect(reply.body.data).toBe(png.toString('base64'));
  }, 30_000);

  it('a JPEG without a content-type is the image', async () => {
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(100)]);
    expect(await engine.call('GET', image('JPEG', jpeg))).toMatchObject({ isResultSuccess: true, result: 5, data: jpeg.toString('base64') });
  });

  it('an SVG (image/svg+xml) is the image', async () => {
    const svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>';
    expect(await engine.call('GET', image('SVG', svg, 'image/svg+xml'))).toMatchObject({ isResultSuccess: true, result: 5 });
  });

  it('an HTML page with status 200 is no image: AdapterApiClientFailed (2), naming the content-type', async () => {
    const envelope = await engine.call('GET', image('HTML', '<!DOCTYPE html><html><body>Login required</body></html>', 'text/html; charset=utf-8'));
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 2, data: null });
    expect(JSON.stringify(envelope.validationStatus)).toContain('content-type text/html');
  });

  it('invalid JSON (application/json) is no image', async () => {
    const envelope = await engine.call('GET', image('JSON', '{"error": "image service down"', 'application/json'));
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 2, data: null });
  });

  it('HTML sent as application/octet-stream is no image either: the bytes are checked', async () => {
    const envelope = await engine.call('GET', image('OCTET', '<html><body>Error 500</body></html>', 'application/octet-stream'));
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 0, data: null }); // OperationFailed
    expect(JSON.stringify(envelope.validationStatus)).toContain('image');
  });

  it('an empty body is no image', async () => {
    const envelope = await engine.call('GET', image('EMPTY', '', 'image/png'));
    expect(envelope).toMatchObject({ isResultSuccess: false, data: null });
  });
});

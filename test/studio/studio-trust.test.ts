import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingErp, tempDir, writeFile } from '../cli/cli-process';
import { OUTBOX_PLACEMENT } from '../support/outbox-operation';
import { goTo, openStudioPage, poll, type StudioPage } from './studio-page';
import { sessionToken, startStudio, type Studio } from './studio-process';

/**
 * The studio an integrator can trust (issue 42), in Chromium on a small mapping and a recording ERP:
 * edits are not lost, a file that does not load is neither run, recorded nor shown as passing, recorded
 * answers answer only the request they were recorded for, nothing that can change the ERP is sent without
 * a yes, and a new test case leaves the rest of the test file as it was.
 */
const MAPPING = `version: 1
name: shop
system:
  baseUrl: \${ERP_URL}
operations:
  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
    output: '{ "number": calls.article.body.no, "name": calls.article.body.name, "unitOfMeasure": 1 }'
${OUTBOX_PLACEMENT}`;

/** Written as a person would: comments, flow maps with their own spacing, a blank line between cases. */
const TESTS = `# Tests of shop.yaml.
env:
  ERP_URL: http://erp.test/api/v1

cases:
  # The bolt, as the ERP answered it.
  - name: K-1 item
    operation: GetItem
    input: {number: K-1}
    answers:
      article: { headers: &json {content-type: application/json}, body: {no: K-1,   name: Bolt} }
    expect: { result: Succeed, data: { number: K-1 } }

  - name: K-2 item   # another article
    operation: GetItem
    input: { number: K-2 }
    answers:
      article:
        headers: *json
        body: { no: K-2, name: Nut }
    expect:
      result: Succeed
`;

/** A text that does not load: a result the route does not have. */
const BROKEN = MAPPING.replace('    output: \'{ "number"', '    outcomes:\n      - when: response.status = 404\n        result: ItemNotThere\n    output: \'{ "number"');

const PLACEMENT = { workOrderNumber: 'SO-1', itemNumber: 'A-1', completedAmount: 1, confirmedLocationName: 'PW-1', userEmail: 'ann@example.com' };

let studio: Studio;
let erp: Awaited<ReturnType<typeof startRecordingErp>>;
let shown: StudioPage;
let page: Page;
let dir: string;
let token: string;

async function post(route: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const answer = await fetch(`${studio.origin}/studio/api${route}`, { method: route === '/source' ? 'PUT' : 'POST', headers: { 'content-type': 'application/json', origin: studio.origin, 'x-studio-token': token }, body: JSON.stringify(body) });
  return { status: answer.status, json: await answer.json() as Record<string, unknown> };
}

function saveSource(text: string) {
  return post('/source', { file: 'shop.yaml', text });
}

beforeAll(async () => {
  erp = await startRecordingErp({ no: 'K-1', name: 'Bolt' });
  dir = tempDir();
  writeFile(dir, 'shop.yaml', MAPPING);
  writeFile(dir, 'shop.test.yaml', TESTS);
  studio = await startStudio(['shop.yaml'], dir, { ERP_URL: erp.url });
  token = await sessionToken(studio);
  shown = await openStudioPage();
  page = shown.page;
}, 60_000);

afterAll(async () => {
  await shown?.browser.close();
  await studio?.stop();
  await erp?.close();
}, 60_000);

describe('the studio an integrator can trust', { timeout: 90_000 }, () => {
  it('1: keeps unsaved edits per file across pages, marks the file changed, and asks before a reload drops them', async () => {
    await page.goto(`${studio.url}#/editor`);
    await poll(() => page.locator('.cm-content').textContent()).toContain('name: shop');
    await page.locator('.cm-line', { hasText: /^name: shop$/ }).click();
    await page.keyboard.press('End');
    await page.keyboard.type('-edited');
    await poll(() => page.locator('.toolbar .unsaved').textContent()).toContain('unsaved changes');
    await goTo(page, 'Try a route');
    // The file is marked changed where files are picked, and Try says it runs the saved text.
    expect(await page.getByLabel('Mapping file').locator('option').first().textContent()).toBe('shop.yaml (unsaved changes)');
    await poll(() => page.locator('main').textContent()).toContain('shop.yaml has unsaved changes in the Editor: this runs the saved text');
    await goTo(page, 'Editor');
    await poll(() => page.locator('.cm-content').textContent()).toContain('name: shop-edited');
    expect(fs.readFileSync(path.join(dir, 'shop.yaml'), 'utf8')).toContain('name: shop\n');
    // Leaving asks first (beforeunload); staying keeps the work.
    shown.answerDialogs = (dialog) => dialog.dismiss();
    const url = page.url();
    await expect(page.goto('about:blank')).rejects.toThrow(/ERR_ABORTED/);
    expect(shown.dialogs.map((dialog) => dialog.type)).toEqual(['beforeunload']);
    expect(page.url()).toBe(url);
    expect(await page.locator('.cm-content').textContent()).toContain('name: shop-edited');
    shown.answerDialogs = (dialog) => dialog.accept();
    // Put back as saved: nothing is unsaved, so a reload asks nothing.
    await page.locator('.cm-line', { hasText: /^name: shop-edited$/ }).click();
    await page.keyboard.press('End');
    for (let index = 0; index < '-edited'.length; index += 1) await page.keyboard.press('Backspace');
    await poll(() => page.locator('.toolbar .unsaved').count()).toBe(0);
    const asked = shown.dialogs.length;
    await page.reload();
    await poll(() => page.locator('.cm-content').textContent()).toContain('name: shop');
    expect(shown.dialogs.length).toBe(asked);
  });

  it('2: refuses to try or record a file whose saved text does not load, and says so at the button', async () => {
    // A run while the file loads, to save as a test case after it stopped loading.
    const ran = await post('/try', { file: 'shop.yaml', operation: 'GetItem', input: { number: 'K-1' }, source: 'erp' });
    expect(ran.status).toBe(200);
    expect((await saveSource(BROKEN)).json.loads).toBe(false);
    const tried = await post('/try', { file: 'shop.yaml', operation: 'GetItem', input: { number: 'K-1' }, source: 'erp' });
    expect(tried.status).toBe(409);
    expect(tried.json.error).toMatch(/^shop\.yaml does not load as saved \(1 problem\), so it cannot be tried: fix it in the editor and save\. shop\.yaml:\d+:\d+ {2}"ItemNotThere" is not a result/);
    expect(tried.json.issues).toMatchObject([{ code: 'UNKNOWN_RESULT', severity: 'error' }]);
    const saved = await post(`/requests/${String(ran.json.requestId)}/test-case`, {});
    expect(saved.status).toBe(409);
    expect(saved.json.error).toContain('shop.yaml does not load as saved (1 problem), so it cannot take a new test case');
    expect(saved.json.issues).toMatchObject([{ code: 'UNKNOWN_RESULT' }]);
    expect(fs.readFileSync(path.join(dir, 'shop.test.yaml'), 'utf8')).toBe(TESTS);
    await page.goto(`${studio.url}#/try`);
    await page.getByLabel('Operation').selectOption('GetItem');
    const atButton = page.locator('form.toolbar .not-loading');
    await poll(() => atButton.textContent()).toContain('shop.yaml does not load as saved (1 problem): Run and Save as test case refuse it until it does');
    expect(await atButton.textContent()).toContain('"ItemNotThere" is not a result');
    await page.getByLabel('number', { exact: true }).fill('K-1');
    await page.getByRole('button', { name: 'Run' }).click();
    await poll(() => page.locator('form.toolbar .notice.error:not(.not-loading)').textContent()).toContain('so it cannot be tried');
    expect(await page.getByRole('region', { name: 'Trace' }).count()).toBe(0);
  });

  it('3: answers 409 for the tests of a file that does not load, and the Tests page shows them failed', async () => {
    const tests = await post('/tests', { file: 'shop.yaml' });
    expect(tests.status).toBe(409);
    expect(tests.json.error).toContain('shop.yaml does not load as saved (1 problem), so it cannot be tested');
    expect(tests.json.issues).toMatchObject([{ code: 'UNKNOWN_RESULT' }]);
    await goTo(page, 'Tests');
    await page.getByRole('button', { name: 'Run tests' }).click();
    await poll(() => page.getByRole('status').textContent()).toMatch(/^shop\.yaml: failed: shop\.yaml does not load as saved/);
    expect(await page.locator('main').textContent()).not.toMatch(/passed|every output field was filled/);
    expect(await page.locator('main ul.issues').textContent()).toContain('"ItemNotThere" is not a result');
    // Fixed and saved: the cases run and pass again.
    expect((await saveSource(MAPPING)).json.loads).toBe(true);
    await page.getByRole('button', { name: 'Run tests' }).click();
    await poll(() => page.getByRole('status').textContent()).toBe('shop.test.yaml: 2 of 2 passed');
  });

  it('4: takes recorded answers only from the case recorded for the request the input makes, and names it', async () => {
    const missing = await post('/try', { file: 'shop.yaml', operation: 'GetItem', input: { number: 'K-404' }, source: 'recorded' });
    expect(missing.status).toBe(409);
    expect(missing.json.error).toMatch(/^no case of GetItem in shop\.test\.yaml recorded answers for this input: it sends GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/articles\/K-404; the closest case, "K-1 item" \(shop\.test\.yaml:7\), was recorded for GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/articles\/K-1\./);
    expect(missing.json.closest).toMatchObject({ name: 'K-1 item', at: 'shop.test.yaml:7' });
    const second = await post('/try', { file: 'shop.yaml', operation: 'GetItem', input: { number: 'K-2' }, source: 'recorded' });
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ recordedCase: { name: 'K-2 item', at: 'shop.test.yaml:14' }, resultName: 'Succeed', envelope: { data: { number: 'K-2', name: 'Nut' } } });
    expect(erp.received.filter((request) => request.url.includes('K-2'))).toEqual([]);
    await goTo(page, 'Try a route');
    await page.getByLabel('Operation').selectOption('GetItem');
    await page.getByLabel('Answers from').selectOption('recorded');
    await page.getByLabel('number', { exact: true }).fill('K-404');
    await page.getByRole('button', { name: 'Run' }).click();
    await poll(() => page.locator('form.toolbar .notice.error').textContent()).toContain('the closest case, "K-1 item" (shop.test.yaml:7)');
    await page.getByLabel('number', { exact: true }).fill('K-1');
    await page.getByRole('button', { name: 'Run' }).click();
    await poll(() => page.locator('p.ran').textContent()).toBe('GetItem (GET /Items/{number}), answers from recorded answers of "K-1 item" (shop.test.yaml:7)');
  });

  it('5: sends a call that can change the ERP only once asked and confirmed', async () => {
    const before = erp.received.length;
    const refused = await post('/try', { file: 'shop.yaml', operation: 'ConfirmPutWallPlacement', input: PLACEMENT, source: 'erp' });
    expect(refused.status).toBe(409);
    expect(refused.json.calls).toEqual(['placement (POST /placements)']);
    expect(refused.json.error).toMatch(/^ConfirmPutWallPlacement can change the ERP at http:\/\/127\.0\.0\.1:\d+\/api\/v1: it would send placement \(POST \/placements\)\. Send again with "confirm": true to send it$/);
    // On the page: the person is asked; "no" sends nothing.
    await goTo(page, 'Try a route');
    await page.getByLabel('Operation').selectOption('ConfirmPutWallPlacement');
    await page.getByLabel('Answers from').selectOption('erp');
    await page.getByLabel(/Input \(JSON body\)/).fill(JSON.stringify(PLACEMENT));
    shown.answerDialogs = (dialog) => dialog.dismiss();
    const asked = shown.dialogs.length;
    await page.getByRole('button', { name: 'Run' }).click();
    await poll(() => page.locator('form.toolbar .notice.error').textContent()).toBe('not sent: ConfirmPutWallPlacement would send placement (POST /placements) to the ERP');
    expect(shown.dialogs.slice(asked)).toEqual([{ type: 'confirm', message: 'ConfirmPutWallPlacement can change the ERP: it sends placement (POST /placements).\n\nSend it to the ERP now?' }]);
    expect(erp.received.length).toBe(before);
    // "Yes" sends it.
    shown.answerDialogs = (dialog) => dialog.accept();
    await page.getByRole('button', { name: 'Run' }).click();
    await poll(() => page.getByRole('region', { name: 'Trace' }).textContent()).toContain('stored in the outbox as');
    await poll(() => erp.received.slice(before).map((request) => `${request.method} ${request.url}`)).toEqual(['POST /api/v1/placements']);
    // A read is sent without asking.
    expect((await post('/try', { file: 'shop.yaml', operation: 'GetItem', input: { number: 'K-1' }, source: 'erp' })).status).toBe(200);
  });

  it('6: "Save as test case" appends the case and leaves every other byte of the test file as it was', async () => {
    const file = path.join(dir, 'shop.test.yaml');
    const before = fs.readFileSync(file, 'utf8');
    await goTo(page, 'Try a route');
    await page.getByLabel('Operation').selectOption('GetItem');
    await page.getByLabel('Answers from').selectOption('erp');
    await page.getByLabel('number', { exact: true }).fill('K-1');
    await page.getByRole('button', { name: 'Run' }).click();
    await poll(() => page.locator('p.ran').textContent()).toMatch(/answers from the ERP at/);
    await page.getByRole('button', { name: 'Save as test case' }).click();
    await poll(() => page.getByRole('status').textContent()).toMatch(/^saved as test case "GetItem at .*: Succeed" in shop\.test\.yaml$/);
    const after = fs.readFileSync(file, 'utf8');
    // Only an insertion: what comes before and after the new text is the file as it was.
    let prefix = 0;
    while (prefix < before.length && before[prefix] === after[prefix]) prefix += 1;
    let suffix = 0;
    while (suffix < before.length - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix += 1;
    expect(prefix + suffix).toBe(before.length);
    expect(after.slice(prefix, after.length - suffix)).toMatch(/^\n? {2}- name: "GetItem at .*: Succeed"\n {4}operation: GetItem\n/);
    const tests = await post('/tests', { file: 'shop.yaml' });
    expect(tests.json.cases).toHaveLength(3);
  });

  it('ran with no error in the page', () => {
    expect(shown.pageErrors).toEqual([]);
  });
});

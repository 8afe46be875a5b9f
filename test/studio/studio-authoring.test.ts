import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingErp, tempDir, writeFile } from '../cli/cli-process';
import { OUTBOX_PLACEMENT } from '../support/outbox-operation';
import { endOf, goTo, openStudioPage, poll, setEditorText, type StudioPage } from './studio-page';
import { sessionToken, startStudio, type Studio } from './studio-process';

/**
 * The studio as a place to write a mapping from (issue 42), in Chromium on a small mapping and a
 * recording ERP: the outbox shows delivered events with the ERP's answer and when, a new mapping is
 * started from the page as `init` starts one, the test file is edited beside the mapping with the
 * checks of `test`, and the fields of the ERP's last answer to a Try are at hand in the editor.
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

/** What the ERP answers every request: more fields than the test file recorded. */
const ERP_ANSWER = { no: 'K-1', name: 'Bolt', weightKg: 2.5, stock: { onHand: 4, bins: [{ bin: 'A-1' }] } };

const PLACEMENT = { workOrderNumber: 'SO-7', itemNumber: 'A-1', completedAmount: 1, confirmedLocationName: 'PW-1', userEmail: 'ann@example.com' };

let studio: Studio;
let erp: Awaited<ReturnType<typeof startRecordingErp>>;
let shown: StudioPage;
let page: Page;
let dir: string;
let token: string;

async function call(method: 'GET' | 'POST', route: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const answer = await fetch(`${studio.origin}/studio/api${route}`, { method, headers: { 'content-type': 'application/json', origin: studio.origin, 'x-studio-token': token }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: answer.status, json: await answer.json() as Record<string, unknown> };
}

beforeAll(async () => {
  erp = await startRecordingErp(ERP_ANSWER);
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

describe('the studio as a place to write a mapping', { timeout: 90_000 }, () => {
  it('shows delivered events too, with the ERP\'s answer and when, by status', async () => {
    const before = Date.now();
    expect((await call('POST', '/try', { file: 'shop.yaml', operation: 'ConfirmPutWallPlacement', input: PLACEMENT, source: 'erp', confirm: true })).status).toBe(200);
    await poll(async () => ((await call('GET', '/outbox?status=delivered&order=settled')).json.events as unknown[]).length).toBe(1);
    const [event] = (await call('GET', '/outbox?status=delivered&order=settled')).json.events as { settledAt: number; attempts: number; last: { status: number; body: string } }[];
    expect(event).toMatchObject({ status: 'delivered', attempts: 1, last: { call: 'placement', status: 200 } });
    expect(event.settledAt).toBeGreaterThanOrEqual(before);
    expect(JSON.parse(event.last.body)).toEqual(ERP_ANSWER);
    // The admin listener's filter, refused alike.
    expect((await call('GET', '/outbox?order=newest')).json.error).toBe('order takes accepted or settled; got newest');
    await page.goto(`${studio.url}#/outbox`);
    await poll(() => page.locator('main').textContent()).toContain('nothing waits: every event was delivered');
    await page.getByLabel('Status').selectOption('delivered');
    const rows = page.getByRole('table', { name: 'Events' }).locator('tbody tr');
    await poll(() => rows.count()).toBe(1);
    const cells = await rows.first().locator('td').allTextContents();
    expect(cells[0]).toContain('ConfirmPutWallPlacement');
    expect(cells.slice(1, 3)).toEqual(['delivered', '1']);
    // When it was settled, as the browser writes that moment.
    expect(cells[4]).toBe(await page.evaluate((at) => new Date(at).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' }), event.settledAt));
    expect(cells[5]).toMatch(/^200 placement .*\{"no":"K-1","name":"Bolt","weightKg":2\.5,/);
    // A delivered event is neither retried nor dropped.
    expect(await rows.first().getByRole('button').count()).toBe(0);
    await page.getByLabel('Status').selectOption('dropped');
    await poll(() => page.locator('main').textContent()).toContain('no dropped events');
  });

  it('starts a new mapping as init does, refuses a name that exists, and opens it in the editor', async () => {
    await goTo(page, 'Mappings');
    const form = page.getByRole('form', { name: 'New mapping' });
    await form.getByLabel('New mapping').fill('acme');
    await form.getByRole('button', { name: 'Start it' }).click();
    await poll(() => page.locator('main').getAttribute('aria-label')).toBe('Editor');
    await poll(() => page.locator('.cm-content').textContent()).toContain('name: acme');
    expect(await page.getByLabel('Mapping file').inputValue()).toBe('acme.yaml');
    const written = fs.readFileSync(path.join(dir, 'acme.yaml'), 'utf8');
    expect(written).toContain('# The mapping of acme, as "adapter-engine init" wrote it');
    expect(fs.readFileSync(path.join(dir, 'acme.test.yaml'), 'utf8')).toContain('# Tests of acme.yaml');
    // It serves beside shop: its saved text loads, and its tests run.
    const mappings = (await call('GET', '/mappings')).json.mappings as { file: string; loads: boolean }[];
    expect(mappings.map((mapping) => [mapping.file, mapping.loads])).toEqual([['shop.yaml', true], ['acme.yaml', true]]);
    expect((await call('POST', '/tests', { file: 'acme.yaml' })).status).toBe(200);
    // A name taken is refused with why, and nothing is written over.
    const again = await call('POST', '/mappings', { name: 'acme' });
    expect(again).toEqual({ status: 409, json: { error: 'acme.yaml exists already; a new mapping never overwrites a file' } });
    expect((await call('POST', '/mappings', { name: 'shop' })).status).toBe(409);
    expect((await call('POST', '/mappings', { name: '../x' })).json.error).toBe('"../x" cannot name a mapping: use letters, digits, - and _ (it becomes the file name), e.g. acme');
    await goTo(page, 'Mappings');
    await form.getByLabel('New mapping').fill('acme');
    await form.getByRole('button', { name: 'Start it' }).click();
    await poll(() => form.getByRole('alert').textContent()).toBe('acme.yaml exists already; a new mapping never overwrites a file');
    expect(fs.readFileSync(path.join(dir, 'acme.yaml'), 'utf8')).toBe(written);
  });

  it('edits the test file beside the mapping: its checks as you type, unsaved edits kept, other cases kept byte for byte', async () => {
    await goTo(page, 'Editor');
    await page.getByLabel('Mapping file').selectOption('shop.yaml');
    await page.getByLabel('Edit', { exact: true }).selectOption('tests');
    await poll(() => page.locator('.cm-content').textContent()).toContain('# Tests of shop.yaml.');
    expect(await page.locator('.cm-content').getAttribute('aria-label')).toBe('Test file YAML');
    // The test files' schema, and the cases against the mapping, in validate's words at line:col.
    const problems = page.getByRole('list', { name: 'Problems' });
    await endOf(page, ' {4}input: \\{ number: K-2 \\}');
    await page.keyboard.press('Enter');
    await page.keyboard.type('inputs: 1');
    await poll(() => problems.textContent()).toMatch(/^shop\.test\.yaml:14:\d+ {2}.*inputs/);
    for (let undo = 0; undo < 5 && (await page.locator('.cm-content').textContent())?.includes('inputs'); undo += 1) await page.keyboard.press('Control+z');
    await poll(() => problems.locator('li').count()).toBe(0);
    await endOf(page, ' {6}result: Succeed');
    await page.keyboard.type('ed');
    await poll(() => problems.locator('.where').allTextContents()).toEqual(['shop.test.yaml:19:15']);
    expect(await problems.locator('.what').textContent()).toMatch(/^"Succeeded" is not a result of GET \/Items\/\{number\}; use one of: OperationFailed, Succeed, /);
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await poll(() => problems.locator('li').count()).toBe(0);
    // An edit of one case is kept across pages and marked, and a reload asks first.
    await endOf(page, ' {2}- name: K-1 item');
    await page.keyboard.type(' (bolt)');
    await poll(() => page.locator('.toolbar .unsaved').count()).toBe(1);
    expect(await page.getByLabel('Edit', { exact: true }).locator('option').nth(1).textContent()).toBe('its tests: shop.test.yaml (unsaved changes)');
    await goTo(page, 'Tests');
    await poll(() => page.locator('.toolbar .notice').textContent()).toBe('shop.test.yaml has unsaved changes in the Editor: this runs the saved text');
    await goTo(page, 'Editor');
    await page.getByLabel('Edit', { exact: true }).selectOption('tests');
    await poll(() => page.locator('.cm-content').textContent()).toContain('- name: K-1 item (bolt)');
    shown.answerDialogs = (dialog) => dialog.dismiss();
    const asked = shown.dialogs.length;
    await expect(page.goto('about:blank')).rejects.toThrow(/ERR_ABORTED/);
    expect(shown.dialogs.slice(asked).map((dialog) => dialog.type)).toEqual(['beforeunload']);
    shown.answerDialogs = (dialog) => dialog.accept();
    // Saved: the file is the text as typed; the other case and every comment and space stay as they were.
    await page.getByRole('button', { name: 'Save' }).click();
    await poll(() => page.getByRole('status').textContent()).toBe('saved shop.test.yaml; Tests runs it');
    expect(fs.readFileSync(path.join(dir, 'shop.test.yaml'), 'utf8')).toBe(TESTS.replace('- name: K-1 item', '- name: K-1 item (bolt)'));
    await poll(() => page.locator('.toolbar .unsaved').count()).toBe(0);
  });

  it('offers the fields of the ERP\'s last answer to a Try, and inserts a clicked field\'s path at the editor\'s cursor', async () => {
    await page.getByLabel('Edit', { exact: true }).selectOption('mapping');
    await poll(() => page.locator('.cm-content').textContent()).toContain('name: shop');
    await endOf(page, ' {4}output: .*');
    await page.keyboard.press('Enter');
    await page.keyboard.type('# weight: ');
    const trace = page.getByRole('region', { name: 'Trace' });
    /** Tries GetItem against the ERP and clicks the field of its answer. */
    const clickField = async (field: string) => {
      await goTo(page, 'Try a route');
      await page.getByLabel('Operation').selectOption('GetItem');
      await page.getByLabel('Answers from').selectOption('erp');
      await page.getByLabel('number', { exact: true }).fill('K-1');
      await page.getByRole('button', { name: 'Run' }).click();
      await trace.locator('summary', { hasText: /^← article: 200/ }).click();
      await trace.getByLabel('Answer of article').getByRole('button', { name: field, exact: true }).click();
      await poll(() => page.locator('main').getAttribute('aria-label')).toBe('Editor');
    };
    await clickField('weightKg');
    await poll(() => page.locator('.cm-activeLine').textContent()).toBe('    # weight: calls.article.body.weightKg');
    // A field under a list is read under the list's own path, as JSONata reads it.
    await page.keyboard.type(', bin: ');
    await clickField('bin');
    await poll(() => page.locator('.cm-activeLine').textContent()).toBe('    # weight: calls.article.body.weightKg, bin: calls.article.body.stock.bins.bin');
    // Completion knows the fields the ERP sent to the Try, which the test file never recorded.
    await page.keyboard.press('Enter');
    await page.keyboard.type('    # stock: calls.article.body.');
    await page.keyboard.press('Control+Space');
    await page.locator('.cm-tooltip-autocomplete').waitFor();
    expect(await page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allTextContents()).toEqual(expect.arrayContaining(['no', 'name', 'weightKg', 'stock']));
    await page.keyboard.type('stock.');
    await page.keyboard.press('Control+Space');
    await poll(() => page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allTextContents()).toEqual(['bins', 'onHand']);
    await page.keyboard.press('Escape');
    await setEditorText(page, MAPPING);
    await poll(() => page.locator('.toolbar .unsaved').count()).toBe(0);
  });

  it('ran with no error in the page', () => {
    expect(shown.pageErrors).toEqual([]);
  });
});

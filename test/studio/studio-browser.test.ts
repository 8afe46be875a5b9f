import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../cli/cli-process';
import { openStudioPage, poll, setEditorText, type StudioPage } from './studio-page';
import { documentedStudioArgs, exampleCopy, sessionToken, startStudio, type Studio } from './studio-process';

/**
 * The studio in a real browser (Debian's chromium, driven by playwright-core) on a copy of the example
 * mapping with the example ERP: the story of the issue, in order, each page photographed. The pictures go
 * to docs/studio/ only when `npm run docs` asks (STUDIO_SHOTS): a test run leaves the tracked files alone.
 */
const SHOTS = process.env.STUDIO_SHOTS ? path.resolve(ROOT, process.env.STUDIO_SHOTS) : tempDir();
const TYPO_FROM = 'result: WorkOrderDoesNotExist';
const TYPO_TO = 'result: WorkOrderNotFound';

let studio: Studio;
let shown: StudioPage;
let page: Page;
let dir: string;
let original: string;

async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

async function go(hash: string): Promise<void> {
  await page.getByRole('link', { name: hash }).click();
}

async function saveAndSee(text: string | RegExp): Promise<void> {
  await page.getByRole('button', { name: 'Save' }).click();
  await poll(() => page.locator('.notice').first().textContent()).toMatch(text);
}

beforeAll(async () => {
  dir = exampleCopy();
  original = fs.readFileSync(path.join(dir, 'mappings', 'example.yaml'), 'utf8');
  studio = await startStudio(documentedStudioArgs(), dir);
  shown = await openStudioPage();
  page = shown.page;
  // A page blocked by its own Content-Security-Policy, or failing, reports it on the console.
  page.on('console', (message) => { if (message.type() === 'error') shown.pageErrors.push(message.text()); });
  page.on('response', (response) => { if (response.status() >= 400) shown.pageErrors.push(`${response.status()} ${response.request().method()} ${response.url()}`); });
  fs.mkdirSync(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await shown?.browser.close();
  await studio?.stop();
}, 60_000);

describe('the studio in a browser, on the example mapping', { timeout: 90_000 }, () => {
  it('shows the mapping: its routes, base URL and auth kind', async () => {
    await page.goto(studio.url);
    await poll(() => page.locator('main').textContent()).toContain('GetWorkOrderByCode');
    const text = await page.locator('main').textContent();
    expect(text).toMatch(/ERP http:\/\/127\.0\.0\.1:\d+\/api\/v1 · auth none · 17 mapped, 2 static, 0 acknowledged, 0 unmapped/);
    await shoot('mappings');
  });

  it('shows the engine\'s diagnostic at the planted typo\'s line, and drops it once fixed', async () => {
    await go('Editor');
    await poll(() => page.locator('.cm-content').textContent()).toContain('name: example');
    const typoLine = original.split('\n').findIndex((line) => line.includes(TYPO_FROM)) + 1;
    await setEditorText(page, original.replace(TYPO_FROM, TYPO_TO));
    const problems = page.getByRole('list', { name: 'Problems' });
    await poll(() => problems.textContent()).toContain(`mappings/example.yaml:${typoLine}:17  "WorkOrderNotFound" is not a result of GET /WorkOrders/Code`);
    await problems.getByRole('button').first().click(); // moves the editor to the problem
    await poll(() => page.locator('.cm-lintRange-error').first().locator('xpath=ancestor::div[contains(@class,"cm-line")]').textContent()).toContain(TYPO_TO);
    await shoot('editor');
    // Saved with the typo: the file is written, the last good mapping keeps serving.
    await saveAndSee(/does not load \(1 error\): the last good mapping keeps serving/);
    expect(fs.readFileSync(path.join(dir, 'mappings', 'example.yaml'), 'utf8')).toContain(TYPO_TO);
    // Mappings shows why, with the lines around the problem; the last good mapping still serves.
    await go('Mappings');
    const problem = page.getByRole('list', { name: 'Problems' });
    await poll(() => problem.textContent()).toContain(`mappings/example.yaml:${typoLine}:17  "WorkOrderNotFound" is not a result`);
    expect(await problem.locator('pre').textContent()).toMatch(new RegExp(`\\b${typoLine} > +${TYPO_TO}\\n`));
    expect(await page.locator('main').textContent()).toContain('does not load: the last good mapping is serving');
    await go('Editor');
    await poll(() => page.locator('.cm-content').textContent()).toContain('name: example');
    // Completion and hover help come from the mapping format's schema: under system:, the system's settings.
    await page.locator('.cm-line', { hasText: /^ {2}baseUrl: \$\{ERP_URL\}$/ }).click();
    await page.keyboard.press('End');
    await page.keyboard.type('\ntimeo');
    await poll(() => page.locator('.cm-tooltip-autocomplete').textContent()).toContain('timeoutMs');
    await page.keyboard.press('Escape');
    await page.locator('.cm-line', { hasText: /^name: example$/ }).hover();
    await page.locator('.cm-line', { hasText: /^description: / }).getByText('description').hover();
    await poll(() => page.locator('.hover-doc').textContent()).toMatch(/^description: ./);
    await setEditorText(page, original);
    await poll(() => page.locator('.cm-lintRange-error').count()).toBe(0);
    await poll(() => problems.textContent()).toBe('');
    await saveAndSee(/it loads and serves now/);
  });

  it('runs GetWorkOrderByCode against the example ERP and shows its ERP call and envelope', async () => {
    await go('Try a route');
    await page.getByLabel('Operation').selectOption('GetWorkOrderByCode');
    // The form has a field per parameter of the route (Code, StorageName), from the contract.
    await page.getByLabel('StorageName').waitFor();
    await page.getByLabel('Code', { exact: true }).fill('SO-1001');
    await page.getByRole('button', { name: 'Run' }).click();
    const trace = page.getByRole('region', { name: 'Trace' });
    await poll(() => trace.textContent()).toMatch(/→ order: GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/sales-orders\/SO-1001/);
    expect(await trace.textContent()).toContain('← order: 200 in');
    // Each expression with what it gave (its detail holds what it read).
    expect(await trace.textContent()).toMatch(/ƒ calls\.order\.path: input\.Code → "SO-1001"/);
    expect(await page.getByLabel('Envelope').textContent()).toContain('"number": "SO-1001"');
    await shoot('try');
    await page.getByRole('button', { name: 'Save as test case' }).click();
    await poll(() => page.getByRole('status').textContent()).toMatch(/saved as test case "GetWorkOrderByCode at .*: Succeed"/);
  });

  it('runs the test file: the saved case passes with the others; a wrong expectation shows expected and actual side by side', async () => {
    await go('Tests');
    await page.getByRole('button', { name: 'Run tests' }).click();
    await poll(() => page.getByRole('status').textContent()).toMatch(/example\.test\.yaml: (\d+) of \1 passed/);
    const saved = page.locator('tr', { hasText: 'GetWorkOrderByCode at ' });
    expect(await saved.getAttribute('class')).toBe('pass');
    // A case that expects another number fails, the expected and the actual value side by side.
    fs.appendFileSync(path.join(dir, 'mappings', 'example.test.yaml'), [
      '', '  - name: a case that expects the wrong number', '    operation: GetWorkOrderByCode', '    input: { Code: SO-1001 }',
      '    answers:', '      order: { body: { docNo: SO-1001, deliveryDate: "2026-12-01", positions: [] } }',
      '    expect:', '      result: Succeed', '      data: { number: SO-9999 }', '',
    ].join('\n'));
    await page.getByRole('button', { name: 'Run tests' }).click();
    await poll(() => page.getByRole('status').textContent()).toMatch(/example\.test\.yaml: (\d+) of \d+ passed/);
    const failed = page.locator('tr', { hasText: 'a case that expects the wrong number' });
    await poll(() => failed.getAttribute('class')).toBe('fail');
    const sides = failed.locator('.side-by-side');
    expect(await sides.textContent()).toMatch(/expected"SO-9999"\s*actual"SO-1001"/);
    await failed.scrollIntoViewIfNeeded();
    await shoot('tests');
  });

  it('lists the request in Requests, and a new one arrives without a reload', async () => {
    await go('Requests');
    const rows = page.locator('tbody tr');
    await poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('GetWorkOrderByCode');
    // Another request, sent by the API as the page would: it arrives over server-sent events.
    const token = await sessionToken(studio);
    const answer = await fetch(`${studio.origin}/studio/api/try`, { method: 'POST', headers: { 'content-type': 'application/json', origin: studio.origin, 'x-studio-token': token }, body: JSON.stringify({ file: 'mappings/example.yaml', operation: 'GetItem', input: { number: 'A-100' }, source: 'erp' }) });
    expect(answer.status).toBe(200);
    await poll(() => rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain('GetItem');
    await rows.nth(1).getByRole('button').click();
    await poll(() => page.getByRole('region', { name: 'Request detail' }).textContent()).toContain('← order: 200');
    await shoot('requests');
  });

  it('makes an event dead-letter and retries it from the Outbox once the mapping is fixed', async () => {
    // The placement goes to a path the example ERP does not have: 404, a dead letter.
    await go('Editor');
    await poll(() => page.locator('.cm-content').textContent()).toContain('name: example');
    await setEditorText(page, original.replace('path: /putwall/placements', 'path: /putwall/placement'));
    await saveAndSee(/it loads and serves now/);
    await go('Try a route');
    await page.getByLabel('Operation').selectOption('ConfirmPutWallPlacement');
    // A body route: the JSON body, prefilled with the smallest body its schema accepts (here {}).
    await poll(() => page.getByLabel('Input (JSON body)').inputValue()).toBe('{}');
    await page.getByLabel('Input (JSON body)').fill('{ "workOrderNumber": "SO-1001", "itemNumber": "A-100", "completedAmount": 4, "confirmedLocationName": "PW-01-A1", "userEmail": "ann@example.com" }');
    await page.getByRole('button', { name: 'Run' }).click();
    await poll(() => page.getByRole('region', { name: 'Trace' }).textContent()).toContain('stored in the outbox as');
    await go('Outbox');
    await poll(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return page.locator('tbody tr', { hasText: 'ConfirmPutWallPlacement' }).textContent();
    }).toMatch(/dead.*404/);
    await shoot('outbox');
    await go('Editor');
    await poll(() => page.locator('.cm-content').textContent()).toContain('name: example');
    await setEditorText(page, original);
    await saveAndSee(/it loads and serves now/);
    await go('Outbox');
    await page.getByRole('button', { name: /^Retry / }).click(); // confirmed in the dialog
    await poll(() => page.getByRole('status').textContent()).toContain('pending again');
    await poll(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return page.locator('main').textContent();
    }).toContain('nothing waits: every event was delivered');
    // Delivered events too, the latest first: when, and what the ERP answered.
    await page.getByLabel('Status').selectOption('delivered');
    await poll(() => page.getByRole('table', { name: 'Events' }).locator('tbody tr', { hasText: 'ConfirmPutWallPlacement' }).textContent()).toMatch(/delivered2.*201 placement/);
    await shoot('outbox-delivered');
  });

  it('runs an operation on the answers recorded in the test file, sending nothing', async () => {
    const token = await sessionToken(studio);
    const answer = await fetch(`${studio.origin}/studio/api/try`, { method: 'POST', headers: { 'content-type': 'application/json', origin: studio.origin, 'x-studio-token': token }, body: JSON.stringify({ file: 'mappings/example.yaml', operation: 'GetWorkOrderByCode', input: { Code: 'SO-1001' }, source: 'recorded' }) });
    const run = await answer.json() as { source: string; resultName: string; steps: { step: string; source?: string }[] };
    // The case recorded for the request this input makes (GET /sales-orders/SO-1001), named.
    expect(run.source).toMatch(/^recorded answers of ".+" \(mappings\/example\.test\.yaml:\d+\)$/);
    expect(run.steps.filter((step) => step.step === 'response').map((step) => step.source)).toEqual(['recorded']);
    expect(run.resultName).toBe('Succeed');
  });

  it('edits the test file beside the mapping, and puts a field of the ERP\'s answer to a Try into the mapping with a click', async () => {
    await go('Editor');
    await page.getByLabel('Edit', { exact: true }).selectOption('tests');
    await poll(() => page.locator('.cm-content').getAttribute('aria-label')).toBe('Test file YAML');
    await poll(() => page.locator('.cm-content').textContent()).toContain('cases:');
    await shoot('test-file');
    await page.getByLabel('Edit', { exact: true }).selectOption('mapping');
    await poll(() => page.locator('.cm-content').textContent()).toContain('name: example');
    await go('Try a route');
    await page.getByLabel('Operation').selectOption('GetWorkOrderByCode');
    await page.getByLabel('Code', { exact: true }).fill('SO-1001');
    await page.getByRole('button', { name: 'Run' }).click();
    const trace = page.getByRole('region', { name: 'Trace' });
    await trace.locator('summary', { hasText: /^← order: 200/ }).click();
    const field = trace.getByLabel('Answer of order').getByRole('button').first();
    const path = (await field.getAttribute('title'))?.replace(/^insert (\S+) at the editor's cursor$/, '$1');
    expect(path).toMatch(/^calls\.order\.body\.\w+$/);
    await field.scrollIntoViewIfNeeded();
    await shoot('try-fields');
    await field.click();
    await poll(() => page.locator('main').getAttribute('aria-label')).toBe('Editor');
    await poll(() => page.locator('.cm-content').textContent()).toContain(path);
    await setEditorText(page, original);
    await poll(() => page.locator('.toolbar .unsaved').count()).toBe(0);
  });

  it('every page is reached from the keyboard, and every control on it has a name a screen reader says', async () => {
    const titles = await page.getByRole('navigation', { name: 'Pages' }).getByRole('link').allTextContents();
    expect(titles.length).toBeGreaterThanOrEqual(6);
    for (const title of titles) {
      await page.getByRole('link', { name: title }).focus();
      await page.keyboard.press('Enter');
      await poll(() => page.locator('main').getAttribute('aria-label')).toBe(title);
      await page.waitForLoadState('networkidle');
      // A control's accessible name: its <label>, aria-label(ledby), title, or (buttons, links) its text.
      const unnamed = await page.locator('main').evaluate((main) => [...main.querySelectorAll('button, input, select, textarea, a[href]')]
        .filter((control) => {
          const field = control as unknown as { readonly labels?: { readonly length: number } | null; readonly type?: string };
          const labelled = field.labels?.length ?? 0;
          const named = control.getAttribute('aria-label') ?? control.getAttribute('aria-labelledby') ?? control.getAttribute('title');
          const text = control.tagName === 'BUTTON' || control.tagName === 'A' ? control.textContent?.trim() : '';
          return labelled === 0 && !named && !text && field.type !== 'hidden';
        })
        .map((control) => control.outerHTML.slice(0, 120)));
      expect(unnamed, title).toEqual([]);
    }
  });

  it('ran with no script or style blocked by its Content-Security-Policy and no error in the page', () => {
    expect(shown.pageErrors).toEqual([]);
  });
});

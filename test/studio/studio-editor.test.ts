import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeFile } from '../cli/cli-process';
import { endOf, openStudioPage, poll, setEditorText, type StudioPage } from './studio-page';
import { startStudio, type Studio } from './studio-process';

/**
 * The editor as an integrator expects it (issue 42), in Chromium: search and replace, completion that
 * knows where the cursor is, and the problem list aligned with each problem a link to its line.
 */
const MAPPING = `version: 1
name: shop
system:
  baseUrl: http://127.0.0.1:9/api
operations:
  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
    output: '{ "number": calls.article.body.no, "name": calls.article.body.name, "unitOfMeasure": 1 }'
`;

let studio: Studio;
let shown: StudioPage;
let page: Page;

async function completions(): Promise<string[]> {
  await page.locator('.cm-tooltip-autocomplete').waitFor();
  return page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allTextContents();
}

beforeAll(async () => {
  const dir = tempDir();
  writeFile(dir, 'shop.yaml', MAPPING);
  writeFile(dir, 'shop.test.yaml', `cases:
  - name: an article
    operation: GetItem
    input: { number: K-1 }
    answers:
      article: { body: { no: K-1, name: Bolt, stock: { onHand: 4, bins: [{ bin: A-1 }] } } }
    expect: { result: Succeed }
`);
  studio = await startStudio(['shop.yaml'], dir);
  shown = await openStudioPage();
  page = shown.page;
  page.on('console', (message) => { if (message.type() === 'error') shown.pageErrors.push(message.text()); });
  await page.goto(`${studio.url}#/editor`);
  await page.locator('.cm-line', { hasText: /^name: shop$/ }).waitFor();
}, 60_000);

afterAll(async () => {
  await shown?.browser.close();
  await studio?.stop();
}, 60_000);

describe('the studio\'s editor', { timeout: 60_000 }, () => {
  it('searches and replaces (Ctrl+F)', async () => {
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+f');
    const panel = page.locator('.cm-search');
    await panel.waitFor();
    await panel.getByRole('textbox', { name: 'Find' }).fill('article');
    await panel.getByRole('textbox', { name: 'Replace' }).fill('product');
    await panel.getByRole('button', { name: 'replace all' }).click();
    await poll(() => page.locator('.cm-content').textContent()).toContain('path: /products/{input.number}');
    expect(await page.locator('.cm-content').textContent()).not.toContain('article');
    await page.keyboard.press('Escape');
    await setEditorText(page, MAPPING);
  });

  it('completes the settings of where the cursor is: under system: the system\'s, not operation names', async () => {
    await endOf(page, '  baseUrl: http://127.0.0.1:9/api');
    await page.keyboard.press('Enter');
    await page.keyboard.type('ti');
    const underSystem = await completions();
    expect(underSystem).toContain('timeoutMs');
    expect(underSystem).not.toContain('GetItem');
    expect(underSystem).not.toContain('calls');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+z');
    await endOf(page, '    output: .*');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+Home');
    await page.keyboard.type('  GetW');
    const operations = await completions();
    expect(operations).toContain('GetWorkOrders');
    expect(operations).not.toContain('timeoutMs');
    await page.keyboard.press('Escape');
    await endOf(page, '        method: GET');
    await page.keyboard.press('Enter');
    await page.keyboard.type('ret');
    expect(await completions()).toContain('retry');
    await page.keyboard.press('Escape');
    await setEditorText(page, MAPPING);
  });

  it('lists the problems aligned, each a link that puts the cursor on its line', async () => {
    await setEditorText(page, MAPPING.replace('method: GET', 'method: FETCH').replace('  baseUrl:', '  timeoutMs: soon\n  baseUrl:'));
    const problems = page.getByRole('list', { name: 'Problems' });
    await poll(() => problems.locator('.where').allTextContents()).toEqual(['shop.yaml:4:14', 'shop.yaml:10:17']);
    const starts = await problems.locator('.what').evaluateAll((spans) => spans.map((span) => Math.round(span.getBoundingClientRect().left)));
    expect(new Set(starts).size).toBe(1);
    const first = problems.getByRole('button').first();
    expect(await first.locator('.where').textContent()).toBe('shop.yaml:4:14');
    const second = problems.getByRole('button').nth(1);
    expect(await second.textContent()).toBe('shop.yaml:10:17  operations.GetItem.calls[0].method must be one of: GET, POST, PUT, PATCH, DELETE');
    await second.click();
    // The cursor's line is the one CodeMirror marks active.
    expect(await page.locator('.cm-activeLine').textContent()).toBe('        method: FETCH');
    await first.click();
    expect(await page.locator('.cm-activeLine').textContent()).toBe('  timeoutMs: soon');
    await setEditorText(page, MAPPING);
    await poll(() => problems.getByRole('button').count()).toBe(0);
  });

  it('explains a function of an expression on hover: JSONata\'s and the engine\'s helpers, as docs/mapping-format.md does', async () => {
    await setEditorText(page, MAPPING.replace('path: /articles/{input.number}', 'path: /articles/{$uppercase(input.number)}').replace('"name": calls.article.body.name', '"name": $toJson(calls.article.body)'));
    for (const [name, help] of [['$uppercase', '$uppercase(str): The text in upper case.'], ['$toJson', '$toJson: $toJson(value) → the value as a JSON string (for externalData fields). (an engine helper)']]) {
      await page.mouse.move(0, 0);
      await poll(() => page.locator('.hover-doc').count()).toBe(0);
      // The middle of the function's name on the screen (the browser's own Range over the text).
      const at = await page.evaluate(`(() => {
        const walker = document.createTreeWalker(document.querySelector('.cm-content'), NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const index = node.textContent.indexOf(${JSON.stringify(name)});
          if (index < 0) continue;
          const range = document.createRange();
          range.setStart(node, index + 1);
          range.setEnd(node, index + 3);
          const box = range.getBoundingClientRect();
          return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
        }
        return undefined;
      })()`) as { x: number; y: number };
      await page.mouse.move(at.x, at.y);
      await poll(() => page.locator('.hover-doc').textContent()).toBe(help);
    }
    await setEditorText(page, MAPPING);
  });

  it('opens the editor at the line a trace names (each file:line a link)', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Try a route' }).click();
    await page.getByLabel('Operation').selectOption('GetItem');
    await page.getByLabel('number', { exact: true }).fill('K-1');
    await page.getByRole('button', { name: 'Run' }).click();
    const link = page.getByRole('region', { name: 'Trace' }).getByRole('link', { name: /^shop\.yaml:10:\d+$/ }).first();
    await link.waitFor();
    await link.click();
    await poll(() => page.locator('main').getAttribute('aria-label')).toBe('Editor');
    await poll(() => page.locator('.cm-activeLine').textContent()).toBe('        path: /articles/{input.number}');
  });

  it('filters Requests by a time range ("last hour", from–to) and by a result chosen from the contract\'s', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Requests' }).click();
    const rows = page.locator('tbody tr');
    await poll(() => rows.count()).toBe(1);
    const ran = (await rows.first().locator('td').nth(4).textContent()) as string;
    expect(ran).not.toBe('Succeed');
    const results = page.locator('form[aria-label="Filters"] label', { hasText: /^Result/ }).locator('select');
    expect(await results.locator('option').allTextContents()).toEqual(expect.arrayContaining(['any', 'Succeed', 'ItemDoesNotExist', ran]));
    await results.selectOption('Succeed');
    await poll(() => rows.count()).toBe(0);
    await results.selectOption(ran);
    await poll(() => rows.count()).toBe(1);
    await page.getByRole('button', { name: 'Last hour' }).click();
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
    await poll(() => rows.count()).toBe(1);
    await page.getByLabel('From', { exact: true }).fill('2000-01-01T00:00');
    await page.getByLabel('To', { exact: true }).fill('2000-01-02T00:00');
    await poll(() => rows.count()).toBe(0);
    await page.getByRole('button', { name: 'Any time' }).click();
    await poll(() => rows.count()).toBe(1);
  });

  it('completes calls.<name>.body. with the fields the ERP sent in the recorded answers', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Editor' }).click();
    await page.locator('.cm-line', { hasText: /^name: shop$/ }).waitFor();
    const lines = MAPPING.trimEnd().split('\n');
    await setEditorText(page, [...lines.slice(0, -1), '    output: calls.article.body.'].join('\n'));
    await page.keyboard.press('Control+Space');
    expect(await completions()).toEqual(expect.arrayContaining(['no', 'name', 'stock']));
    await page.keyboard.type('stock.');
    await page.keyboard.press('Control+Space');
    await poll(() => page.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allTextContents()).toEqual(['bins', 'onHand']);
    await page.keyboard.press('Escape');
    await setEditorText(page, MAPPING);
  });

  it('ran with no error in the page', () => {
    expect(shown.pageErrors).toEqual([]);
  });
});

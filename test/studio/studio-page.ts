import { chromium, type Browser, type Dialog, type Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * The studio's page in Debian's Chromium, and what the browser tests do on it: one copy for every file
 * of test/studio/ (each had its own).
 */

/** The page answers at the machine's pace: a busy one (the whole suite on 2 cores) gets time. */
export function poll<T>(read: () => Promise<T> | T) {
  return expect.poll(read, { timeout: 15_000, interval: 100 });
}

/** A browser with one page, the errors the page raised and the dialogs it opened. */
export interface StudioPage {
  readonly browser: Browser;
  readonly page: Page;
  readonly pageErrors: string[];
  readonly dialogs: { type: string; message: string }[];
  /** How the next dialogs are answered: accepted unless a test says otherwise. */
  answerDialogs: (dialog: Dialog) => Promise<void>;
}

export async function openStudioPage(): Promise<StudioPage> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const opened: StudioPage = { browser, page, pageErrors: [], dialogs: [], answerDialogs: (dialog) => dialog.accept() };
  page.on('pageerror', (error) => opened.pageErrors.push(error.message));
  page.on('dialog', (dialog) => {
    opened.dialogs.push({ type: dialog.type(), message: dialog.message() });
    void opened.answerDialogs(dialog);
  });
  return opened;
}

/** Opens a page of the studio from its navigation, by title, and waits until it shows. */
export async function goTo(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title }).click();
  await poll(() => page.locator('main').getAttribute('aria-label')).toBe(title);
}

/** Replaces the editor's whole text, as a person pasting would (CodeMirror reads the DOM input). */
export async function setEditorText(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(text);
}

/** Puts the cursor at the end of the line with this text. */
export async function endOf(page: Page, line: string): Promise<void> {
  await page.locator('.cm-line', { hasText: new RegExp(`^${line}$`) }).click();
  await page.keyboard.press('End');
}
